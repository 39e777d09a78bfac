import Foundation
import HTTPServer

/// The bundled demo web: four app sites written for this project, served over HTTPS on
/// 127.0.0.1 with a private CA — Friends (profiles with portraits, a universal-link
/// association file), 星火直播 (a live-streaming app with Chinese pages and no web
/// fallback), Peak Shop (products with ratings and prices, a noindex page, robots rules) and
/// Tartine (a client-rendered recipe app: every page an empty shell its script fills).
public enum DemoWeb {
    public static let sites = Bundle.module.url(forResource: "Sites", withExtension: nil)!

    /// The host names of the demo sites.
    public static var hosts: [String] { StaticWeb(root: sites).hosts }

    /// The CA certificate that signed the demo's server certificate (for `--cacert`).
    public static var caFile: String { certificate("ca.pem") }

    public static var tls: HTTPServer.TLS {
        HTTPServer.TLS(certificatePEM: try! String(contentsOfFile: certificate("server.pem"), encoding: .utf8),
                       privateKeyPEM: try! String(contentsOfFile: certificate("server-key.pem"), encoding: .utf8))
    }

    private static func certificate(_ name: String) -> String {
        Bundle.module.url(forResource: "Certificates/\(name)", withExtension: nil)!.path
    }

    /// The name of the folder SwiftPM puts the demo's resources in, beside the executable.
    static let resourceFolder = "Searchlight_DemoWeb.resources"

    /// Whether the demo's resources are where ``sites`` will look: beside the executable
    /// (SwiftPM's layout). A `searchlight` binary copied elsewhere without that folder
    /// would otherwise stop with a fatal error inside `Bundle.module`.
    public static var isAvailable: Bool {
        var folders = [Bundle.main.bundleURL]
        if let executable = Bundle.main.executableURL { folders.append(executable.deletingLastPathComponent()) }
        return folders.contains { FileManager.default.fileExists(atPath: $0.appendingPathComponent(resourceFolder).path) }
    }

    /// Starts serving the demo web on 127.0.0.1 at a free port; returns the server (stop
    /// it when done).
    public static func serve() throws -> HTTPServer {
        guard isAvailable else {
            throw DemoWebUnavailable(resourceFolder: resourceFolder)
        }
        var configuration = HTTPServer.Configuration()
        configuration.tls = tls
        let port = try HTTPServer.freePort()
        configuration.port = port
        let web = StaticWeb(root: sites, port: port)
        return try HTTPServer(configuration: configuration) { web.respond(to: $0) }
    }
}

/// The demo's resources are not beside the executable.
public struct DemoWebUnavailable: Error, CustomStringConvertible {
    public var resourceFolder: String

    public var description: String {
        "the demo sites are missing: \(resourceFolder) must sit beside the searchlight executable"
            + " (run `swift run searchlight demo`, or copy that folder from .build next to the binary)"
    }
}
