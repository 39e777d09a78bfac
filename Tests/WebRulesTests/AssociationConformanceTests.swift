import Foundation
import JSON
import SearchlightTestSupport
import Testing
import WebRules
import WebURL

/// Apple's own verdicts (`swcutil`, as st-tech/universal-links-test records them) on
/// apple-app-site-association files: the URL as a tap sees it, fragment and query included.
@Suite(.enabled(if: PeerData.folder("aasa") != nil, "../shared/peer-data/aasa is not there"))
struct AssociationConformanceTests {
    @Test func swcutilVerdicts() throws {
        let folder = try #require(PeerData.folder("aasa"))
        let data = try JSONParser.parse(String(decoding: Data(contentsOf: folder.appendingPathComponent("cases.json")), as: UTF8.self))
        let appID = try #require(data["appID"]?.stringValue)
        let cases = try #require(data["cases"]?.arrayValue)
        #expect(cases.count == 13)
        for item in cases {
            let name = item["name"]?.stringValue ?? "?"
            let body: String
            if let components = item["components"] {
                body = JSONWriter.string(["applinks": ["details": [["appID": .string(appID), "components": components]]]])
            } else if let json = item["json"], json != .null {
                body = JSONWriter.string(json)
            } else {
                body = "{ not json"
            }
            let url = try #require(WebURL("https://example.com" + (item["path"]?.stringValue ?? "/")), "\(name)")
            let verdict: String
            if let association = AppSiteAssociation(parsing: Array(body.utf8)) {
                verdict = association.match(for: url).map { $0.excludes ? "block" : "match" } ?? "unset"
            } else {
                verdict = "error"
            }
            #expect(verdict == item["expected"]?.stringValue, "\(name): \(url.string)")
        }
    }
}
