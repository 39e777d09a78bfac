import Foundation
import HTTPServer

/// A private CA and a server certificate for `localhost`, `127.0.0.1`, `::1`, `*.web.test` and
/// `*.demo.test`, valid until 2126, for fixture sites served over HTTPS. (OpenSSL does not
/// let a wildcard cover a single-label suffix such as `*.test`, hence the second label.)
public enum TestCertificates {
    private static func path(_ name: String) -> String {
        Bundle.module.url(forResource: "Certificates/\(name)", withExtension: nil)!.path
    }

    /// The CA certificate file, for `--cacert`.
    public static var caFile: String { path("ca.pem") }

    public static var serverTLS: HTTPServer.TLS {
        HTTPServer.TLS(
            certificatePEM: try! String(contentsOfFile: path("server.pem"), encoding: .utf8),
            privateKeyPEM: try! String(contentsOfFile: path("server-key.pem"), encoding: .utf8))
    }
}
