import Foundation
import HTTPServer
import HTTPTypes
import Items
@testable import Service
import ServiceAPI
import Testing

/// The access log's line: what a client sends cannot forge a line, nor restyle or reorder
/// one on the terminal that shows the log.
@Suite struct AccessLogTests {
    @Test func controlsOfEveryKindAreWrittenAsTheirBytes() {
        let request = HTTPServerRequest(method: "GET", path: "/v1/search", rawQueryItems: [(name: "q", value: "tart\u{202E}gpj.exe")],
                                        headers: [HTTPField("User-Agent", "bot\u{1B}[2J\u{9B}31m\u{2066}\n\"x\"")], remoteAddress: "127.0.0.1")
        let line = AccessLog.line(request, .json(["ok": true]), seconds: 0.001, at: Date(timeIntervalSince1970: 1_790_000_000))
        #expect(line.hasSuffix("\n") && line.dropLast().firstIndex(of: "\n") == nil, "one line: \(line)")
        #expect(line.contains(#""GET /v1/search?q=tart\xE2\x80\xAEgpj.exe HTTP/1.1""#), "\(line)")
        #expect(line.contains(#""bot\x1B[2J\xC2\x9B31m\xE2\x81\xA6\x0A\"x\"""#), "\(line)")
        #expect(!line.unicodeScalars.contains { TerminalTextProbe.isControl($0) && $0 != "\n" })
    }
}

/// The same classes ``TerminalText`` escapes, spelled out here so the test does not lean on it.
private enum TerminalTextProbe {
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || [0x061C, 0x200E, 0x200F].contains(scalar.value)
            || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }
}
