import Foundation
import HTTPServer
import Synchronization
import TextUtilities

/// `serve --access-log FILE`: one line per request in the Combined Log Format that nginx
/// and Apache write (and every log tool reads), with the time taken in milliseconds at the
/// end: `127.0.0.1 - - [02/Dec/2026:18:40:00 +0000] "GET /v1/search?q=tart HTTP/1.1" 200
/// 1234 "-" "curl/8.5" 0.41`. The target is cut at 2,048 bytes and quotes and control
/// characters in it and in the headers (C0, DEL, C1 and bidi controls: ``TerminalText``)
/// are escaped, so a hostile client can neither forge lines nor reorder or restyle one on
/// the terminal that shows the log.
public final class AccessLog: Sendable {
    private let file: Mutex<FileHandle>

    /// Opens (or creates) the file for appending.
    public init(path: String) throws {
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
            }
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        file = Mutex(handle)
    }

    public func record(_ request: HTTPServerRequest, _ response: HTTPServerResponse, seconds: Double, at date: Date = Date()) {
        let line = Self.line(request, response, seconds: seconds, at: date)
        file.withLock { try? $0.write(contentsOf: Array(line.utf8)) }
    }

    package static func line(_ request: HTTPServerRequest, _ response: HTTPServerResponse, seconds: Double, at date: Date) -> String {
        let query = request.rawQueryItems.map { item in item.value.map { "\(item.name)=\($0)" } ?? item.name }.joined(separator: "&")
        let target = String((request.path + (query.isEmpty ? "" : "?" + query)).utf8.prefix(2048)) ?? request.path
        let bytes: String
        if case .bytes(let body) = response.body { bytes = String(body.count) } else { bytes = "-" }
        func quoted(_ value: String?) -> String {
            guard let value, !value.isEmpty else { return "\"-\"" }
            var out = "\""
            for scalar in value.unicodeScalars.prefix(512) {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case _ where TerminalText.isControl(scalar):
                    // As nginx writes bytes it escapes: each UTF-8 byte of the character.
                    for byte in String(scalar).utf8 { out += String(format: "\\x%02X", byte) }
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out + "\""
        }
        return "\(request.remoteAddress ?? "-") - - [\(timestamp(date))] \(quoted("\(request.method) \(target) HTTP/1.1")) \(response.status) \(bytes) "
            + "\(quoted(request.header("Referer"))) \(quoted(request.header("User-Agent"))) \(String(format: "%.2f", seconds * 1000))\n"
    }

    /// `02/Dec/2026:18:40:00 +0000`, in UTC.
    package static func timestamp(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return String(format: "%02d/%@/%04d:%02d:%02d:%02d +0000", c.day ?? 1, months[(c.month ?? 1) - 1], c.year ?? 1970,
                      c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
    }
}
