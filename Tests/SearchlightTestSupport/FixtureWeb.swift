import Foundation
import HTTPServer
import HTTPTypes
import Synchronization

/// Several fixture sites behind one loopback server, told apart by the Host header, as
/// a crawler sees them through `--resolve host:port:127.0.0.1`. Each site maps a path
/// (with its query, as sent) to a response; unknown paths are 404. Requests are logged
/// so tests can assert what was fetched.
public final class FixtureWeb: Sendable {
    public typealias Route = @Sendable (HTTPServerRequest) -> HTTPServerResponse

    public let server: HTTPServer
    private let state: State

    private final class State: Sendable {
        let sites = Mutex<[String: [String: Route]]>([:])
        let log = Mutex<[(target: String, time: Date)]>([])
    }

    /// Starts serving on 127.0.0.1 at a free port, over HTTPS when `tls` is true.
    public init(tls: Bool = false) throws {
        let state = State()
        var configuration = HTTPServer.Configuration()
        if tls { configuration.tls = TestCertificates.serverTLS }
        self.state = state
        self.server = try HTTPServer(configuration: configuration) { request in
            let host = request.host ?? ""
            state.log.withLock { $0.append(("\(host)\(request.target)", Date())) }
            guard let route = state.sites.withLock({ $0[host]?[request.target] ?? $0[host]?[request.path] ?? $0["*"]?[request.path] ?? $0[host]?["*"] }) else {
                return .notFound
            }
            return route(request)
        }
    }

    public var port: UInt16 { server.port }

    /// `scheme://host:port` for a fixture host.
    public func origin(_ host: String) -> String {
        "\(server.configuration.tls == nil ? "http" : "https")://\(host):\(port)"
    }

    /// The `--resolve` value that sends `host` to this server.
    public func resolveEntry(_ host: String) -> String { "\(host):\(port):127.0.0.1" }

    public func route(_ host: String, _ path: String, _ route: @escaping Route) {
        state.sites.withLock { $0[host, default: [:]][path] = route }
    }

    /// Answers every request to `host` that no other route of it takes (a site made of a
    /// URL space, such as a calendar).
    public func fallback(_ host: String, _ route: @escaping Route) {
        state.sites.withLock { $0[host, default: [:]]["*"] = route }
    }

    public func page(_ host: String, _ path: String, html: String, headers: [HTTPField] = []) {
        route(host, path) { _ in
            HTTPServerResponse(status: 200, headers: [HTTPField("Content-Type", "text/html; charset=utf-8")] + headers,
                               body: .bytes(Array(html.utf8)))
        }
    }

    public func file(_ host: String, _ path: String, contentType: String, bytes: [UInt8], status: Int = 200) {
        route(host, path) { _ in HTTPServerResponse(status: status, contentType: contentType, body: bytes) }
    }

    /// Every request so far, as `host/path?query`.
    public var requests: [String] { state.log.withLock { $0.map(\.target) } }

    /// Every request so far with the time it arrived.
    public var timedRequests: [(target: String, time: Date)] { state.log.withLock { $0 } }

    public func stop() { server.stop(gracePeriod: 0) }
}
