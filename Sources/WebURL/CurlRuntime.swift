import CCurl
import Glibc

/// One-time process setup that libcurl needs before its first use.
public enum CurlRuntime {
    /// Runs `curl_global_init` once and makes sure the C library's character type is
    /// UTF-8: libcurl hands host names to libidn2's `idn2_lookup_ul`, which reads them
    /// in the locale's encoding and refuses every non-ASCII name under the "C" locale.
    /// Swift's runtime uses no C locale functions itself, so switching LC_CTYPE once,
    /// before any other thread runs libcurl, is safe.
    public static func prepare() {
        _ = initialized
    }

    private static let initialized: Bool = {
        if let codeset = setlocale(LC_CTYPE, nil).map({ String(cString: $0) }), !codeset.uppercased().contains("UTF-8") {
            if setlocale(LC_CTYPE, "C.UTF-8") == nil { _ = setlocale(LC_CTYPE, "en_US.UTF-8") }
        }
        return curl_global_init(Int(CURL_GLOBAL_ALL)) == CURLE_OK
    }()
}
