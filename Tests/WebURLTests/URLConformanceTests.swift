import Foundation
import JSON
import SearchlightTestSupport
import Testing
@testable import WebURL

/// web-platform-tests' `urltestdata.json`, the URL Standard's own cases, for every case a
/// crawler meets: a base that is http(s), or none and an input that is. Each must resolve
/// as the Standard says — to its `href` in our normal form (escapes folded), to nothing
/// when the Standard fails it or names another scheme — apart from the differences listed
/// in ``knownDifferences`` with their reason.
@Suite(.enabled(if: PeerData.folder("wpt_url") != nil, "../shared/peer-data/wpt_url is not there"))
struct URLConformanceTests {
    /// Inputs where we knowingly differ, and why.
    static let knownDifferences: [String: String] = [
        "https://%e2%98%83": "libidn2's IDNA2008 disallows symbols (☃) that UTS #46, as the Standard uses it, maps and keeps",
    ]

    @Test func webPlatformTestsCases() throws {
        let folder = try #require(PeerData.folder("wpt_url"))
        let data = try JSONParser.parse(String(decoding: Data(contentsOf: folder.appendingPathComponent("urltestdata.json")), as: UTF8.self))
        var checked = 0
        var differences: [String] = []
        for item in data.arrayValue ?? [] {
            guard let input = item["input"]?.stringValue else { continue }
            let base = item["base"]?.stringValue
            let trimmed = input.trimmingCharacters(in: CharacterSet(charactersIn: "\u{0}"..."\u{20}"))
                .replacingOccurrences(of: "\t", with: "").replacingOccurrences(of: "\n", with: "").replacingOccurrences(of: "\r", with: "")
            let httpBase = base.map { $0.lowercased().hasPrefix("http:") || $0.lowercased().hasPrefix("https:") } ?? false
            let httpInput = base == nil && (trimmed.lowercased().hasPrefix("http:") || trimmed.lowercased().hasPrefix("https:"))
            guard httpBase || httpInput else { continue }
            checked += 1
            let resolved: WebURL?
            if let base {
                let baseURL = try #require(WebURL(base), "base \(base)")
                resolved = URLResolver(base: baseURL).resolve(input)
            } else {
                resolved = WebURL(input)
            }
            let expected: String?
            if item["failure"]?.boolValue == true {
                expected = nil
            } else if let href = item["href"]?.stringValue, href.hasPrefix("http:") || href.hasPrefix("https:") {
                expected = String(decoding: URLNormalization.normalForm(Array(href.utf8)), as: UTF8.self)
            } else {
                expected = nil
            }
            if resolved?.string != expected {
                differences.append(input)
                if Self.knownDifferences[input] == nil {
                    Issue.record("\(input.debugDescription) against \(base ?? "no base"): \(resolved?.string ?? "nil"), expected \(expected ?? "nil")")
                }
            }
        }
        #expect(checked >= 400)
        for (input, reason) in Self.knownDifferences where !differences.contains(input) {
            Issue.record("\(input.debugDescription) is listed as a difference (\(reason)) but now agrees")
        }
    }
}
