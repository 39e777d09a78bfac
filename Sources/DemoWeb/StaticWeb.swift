import Foundation
import HTTPServer
import TextUtilities

/// Serves folders of files as web sites, one folder per host name (`Sites/<host>/…`),
/// told apart by the Host header. `/a/b` is `a/b`, `a/b.html` or `a/b/index.html`;
/// robots.txt, sitemaps and association files are served with their usual types.
///
/// Absolute URLs in the files name the sites on the default port
/// (`https://shop.demo.test/p/…`). Served on another port, text files get that port
/// written into those URLs, as a reverse proxy in front of the sites would.
public struct StaticWeb: Sendable {
    public let root: URL
    public let port: UInt16?

    public init(root: URL, port: UInt16? = nil) {
        self.root = root
        self.port = port
    }

    /// The host names (folder names) served.
    public var hosts: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }

    public func respond(to request: HTTPServerRequest) -> HTTPServerResponse {
        guard request.method == "GET" || request.method == "HEAD" else { return .text("method not allowed\n", status: 405) }
        guard let host = request.host, hosts.contains(host) else { return .notFound }
        let path = PercentDecoding.decode(request.path)
        guard !path.split(separator: "/").contains("..") else { return .notFound }
        let site = root.appendingPathComponent(host)
        let relative = String(path.drop { $0 == "/" })
        let candidates = relative.isEmpty ? ["index.html"] : [relative, relative + ".html", relative + "/index.html"]
        for candidate in candidates {
            let file = site.appendingPathComponent(candidate)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                let data = FileManager.default.contents(atPath: file.path)
            else { continue }
            let type = Self.contentType(for: file)
            return HTTPServerResponse(status: 200, contentType: type, body: rewritten(Array(data), type: type))
        }
        return .notFound
    }

    private func rewritten(_ body: [UInt8], type: String) -> [UInt8] {
        guard let port, type.hasPrefix("text/") || type.hasPrefix("application/xml") || type.hasPrefix("application/json") else { return body }
        var text = String(decoding: body, as: UTF8.self)
        for host in hosts {
            text = text.replacingOccurrences(of: "://\(host)/", with: "://\(host):\(port)/")
        }
        return Array(text.utf8)
    }

    static func contentType(for file: URL) -> String {
        switch file.pathExtension.lowercased() {
        case "html", "htm": return "text/html; charset=utf-8"
        case "xml": return "application/xml"
        case "txt": return "text/plain; charset=utf-8"
        case "json": return "application/json"
        case "js": return "text/javascript; charset=utf-8"
        case "jpg", "jpeg": return "image/jpeg"
        case "png": return "image/png"
        case "gz": return "application/gzip"
        case "": return file.lastPathComponent == "apple-app-site-association" ? "application/json" : "application/octet-stream"
        default: return "application/octet-stream"
        }
    }
}
