import CCurl

/// Owns one libcurl URL handle (`CURLU`). <https://curl.se/libcurl/c/libcurl-url.html>
///
/// Not thread-safe: a handle is used by one thread at a time, like the libcurl object it
/// wraps.
final class CurlURLHandle {
    let raw: OpaquePointer

    init() {
        CurlRuntime.prepare()
        // > curl_url() returns a pointer to the new handle, or NULL on allocation failure.
        guard let raw = curl_url() else { fatalError("curl_url: out of memory") }
        self.raw = raw
    }

    /// A handle holding `url`, the base that relative references set later resolve against.
    convenience init(url: String) {
        self.init()
        set(CURLUPART_URL, url)
    }

    private init(raw: OpaquePointer) {
        self.raw = raw
    }

    deinit {
        curl_url_cleanup(raw)
    }

    func duplicate() -> CurlURLHandle {
        guard let copy = curl_url_dup(raw) else { fatalError("curl_url_dup: out of memory") }
        return CurlURLHandle(raw: copy)
    }

    /// Sets a part; a relative URL set as `CURLUPART_URL` on a handle that holds one is
    /// resolved against it.
    @discardableResult
    func set(_ part: CURLUPart, _ value: String, flags: UInt32 = 0) -> CURLUcode {
        curl_url_set(raw, part, value, flags)
    }

    func get(_ part: CURLUPart, flags: UInt32 = 0) -> String? {
        var out: UnsafeMutablePointer<CChar>?
        guard curl_url_get(raw, part, &out, flags) == CURLUE_OK, let out else { return nil }
        defer { curl_free(out) }
        return String(cString: out)
    }
}

@available(*, unavailable)
extension CurlURLHandle: Sendable {}
