import DemoWeb
import HTTPServer

/// A private CA and a server certificate for `localhost`, `127.0.0.1`, `::1`, `*.web.test` and
/// `*.demo.test`, valid until 2126, for fixture sites served over HTTPS (the demo web's).
/// OpenSSL does not let a wildcard cover a single-label suffix such as `*.test`, hence
/// the second label.
public enum TestCertificates {
    /// The CA certificate file, for `--cacert`.
    public static var caFile: String { DemoWeb.caFile }

    public static var serverTLS: HTTPServer.TLS { DemoWeb.tls }
}
