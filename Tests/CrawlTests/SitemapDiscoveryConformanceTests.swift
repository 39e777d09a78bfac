import Foundation
import Gzip
import HTTPServer
import HTTPTypes
import JSON
import SearchlightTestSupport
import Testing

/// ultimate-sitemap-parser's own site-tree tests (`../shared/peer-data/usp/`): each test's
/// mocked site served from a fixture host, crawled from its home page, and the pages the
/// crawl took from sitemaps compared with the pages usp found there — robots.txt
/// discovery, well-known paths, indexes, redirects, recursion, gzip, plain text, feeds,
/// hreflang alternates, cut and hostile XML.
@Suite(.serialized, .enabled(if: PeerData.folder("usp") != nil, "../shared/peer-data/usp is not there"))
struct SitemapDiscoveryConformanceTests {
    static let peerHost = "test_ultimate-sitemap-parser.com"

    /// The one case where we differ on purpose: usp also probes well-known paths when
    /// robots.txt names a sitemap; we take the owner's list as given, and probe only when
    /// it names none.
    static let documentedDifferences: Set<String> = ["test_sitemap_tree_for_homepage_unpublished_sitemap"]
    /// Pages we find where usp finds none: a sitemap whose DTD declares entities (a
    /// "billion laughs") that it never uses is read without expanding any, where usp
    /// refuses the whole file; and in a cut sitemap, the entry being read when the file ends
    /// counts when its location was complete, as in crawler-commons' lenient mode, where usp
    /// drops it.
    static let alsoFound: [String: [String]] = [
        "test_billion_laughs_attack": ["/page.html"],
        "test_sitemap_tree_for_homepage_prematurely_ending_xml": ["/news/third.html"],
    ]

    struct Case {
        var name: String
        var host: String
        var expected: Set<String>
        var served: Set<String>
    }

    @Test func sitesAsUltimateSitemapParserSeesThem() throws {
        let folder = try #require(PeerData.folder("usp"))
        let compressed = try Data(contentsOf: folder.appendingPathComponent("cases.json.gz"))
        let text = try Gzip.decompress(Array(compressed), limit: 64 << 20)
        let all = try #require(try JSONParser.parse(String(decoding: text, as: UTF8.self)).arrayValue)
        let web = try FixtureWeb()
        defer { web.stop() }
        var cases: [Case] = []
        for item in all {
            let name = String((item["test"]?.stringValue ?? "?").split(separator: ":").last ?? "?")
            // Cases without a web of their own test usp's options through a mock.
            guard let pages = item["web"]?.arrayValue, !pages.isEmpty,
                item["options"]?.objectValue?.isEmpty ?? true, !Self.documentedDifferences.contains(name) else { continue }
            let host = "c\(cases.count).usp.web.test"
            let origin = web.origin(host)
            func local(_ url: String) -> String { url.replacingOccurrences(of: "http://" + Self.peerHost, with: origin) }
            var served: Set<String> = []
            for page in pages {
                let url = local(page["url"]?.stringValue ?? "")
                let path = String(url.dropFirst(origin.count))
                served.insert(path.isEmpty ? "/" : path)
                var body = Array(Data(base64Encoded: page["body_b64"]?.stringValue ?? "") ?? Data())
                if Gzip.isCompressed(body), let plain = try? Gzip.decompress(body, limit: 64 << 20) {
                    body = Gzip.compress(Array(local(String(decoding: plain, as: UTF8.self)).utf8))
                } else if String(validating: body, as: UTF8.self) != nil {
                    body = Array(local(String(decoding: body, as: UTF8.self)).utf8)
                }
                var headers: [HTTPField] = []
                for (field, value) in page["headers"]?.objectValue?.members ?? [] {
                    headers.append(HTTPField(field, local(value.stringValue ?? "")))
                }
                let status = page["status"]?.intValue ?? 200
                let response = HTTPServerResponse(status: status, headers: headers, body: .bytes(body))
                web.route(host, path.isEmpty ? "/" : path) { _ in response }
            }
            let expected = Set((item["usp_pages"]?.arrayValue ?? []).compactMap { $0["url"]?.stringValue }.map(local)
                + (Self.alsoFound[name] ?? []).map { origin + $0 })
            cases.append(Case(name: name, host: host, expected: expected, served: served))
        }
        #expect(cases.count >= 20)
        let crawl = try CrawlRunner(web: web, hosts: cases.map(\.host))
        defer { crawl.remove() }
        let (result, report) = try crawl.crawl(cases.map { web.origin($0.host) + "/" }, ["--max-pages", "5000"], timeout: 300)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(report != nil)
        let requests = web.requests
        for item in cases {
            let origin = web.origin(item.host)
            // What the crawl fetched as pages: every request to the host but robots.txt, the
            // association files, the home page and the sitemaps themselves.
            let fetched = Set(requests.filter { $0.hasPrefix(item.host + "/") }.map { String($0.dropFirst(item.host.count)) }
                .filter { $0 != "/" && $0 != "/robots.txt" && !$0.hasPrefix("/.well-known/") && $0 != "/apple-app-site-association"
                          && !item.served.contains($0) && !$0.contains("sitemap") }
                .map { origin + $0 })
            let expected = Set(item.expected.filter { !URL(string: $0)!.path.contains("sitemap") && URL(string: $0)!.path != "/" })
            #expect(fetched == expected, "\(item.name): missing \(expected.subtracting(fetched).sorted()), extra \(fetched.subtracting(expected).sorted())")
        }
    }
}
