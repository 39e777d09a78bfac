import Foundation
import HTTPServer
import HTTPTypes
import Items
import JSON
import Markup
import PageItems
import Render
import Router
import SearchIndex
import Service
import ServiceAPI
import TextUtilities
import WebRules
import WebURL

/// The parsers that read what strangers send: a page, a robots.txt, a sitemap, an
/// association file, a pushed item, a query. Each target takes arbitrary bytes and must
/// return without crashing, hanging or leaking, whatever the bytes are.
enum FuzzTarget: String, CaseIterable {
    case markup, jsonStrict = "json-strict", jsonLenient = "json-lenient", robots, sitemap, association, pushItem = "push-item"
    case query, url, mediaType = "media-type", date, engagementToken = "engagement-token", httpFraming = "http-framing", postings
    case shardAnswer = "shard-answer", devtools, indexNow = "indexnow"

    func run(_ bytes: [UInt8]) {
        switch self {
        case .markup:
            let url = WebURL("https://fuzz.example/dir/page?x=1")!
            let markup = MarkupExtractor().extract(bytes, url: url, response: .init(contentType: Self.contentType(bytes)))
            _ = try? ItemBuilder().item(for: markup, url: url)
            _ = markup.json
        case .jsonStrict:
            if let value = try? JSONParser.parse(bytes: bytes) { _ = JSONWriter.bytes(value) }
        case .jsonLenient:
            let result = bytes.withUnsafeBufferPointer { JSONParser.parseLenient(bytes: $0) }
            for value in result.values { _ = JSONWriter.bytes(value) }
        case .robots:
            let rules = RobotsRules(parsing: bytes, productToken: "searchlightbot", robotsURL: WebURL("https://fuzz.example/robots.txt"))
            for path in ["/", "/a/b?c=d", "/%2A$", Self.tail(bytes)] { _ = rules.allows(pathAndQuery: path) }
        case .sitemap:
            let sitemap = Sitemap(parsing: bytes, url: WebURL("https://fuzz.example/sitemap.xml")!, crossSubmitOrigins: ["https://other.example"])
            _ = sitemap.entries.count
        case .association:
            if let association = AppSiteAssociation(parsing: bytes) {
                for url in ["https://fuzz.example/", "https://fuzz.example/a/b?q=1#f", "https://fuzz.example/" + Self.tail(bytes)] {
                    if let url = WebURL(url) { _ = association.appIDs(claiming: url) }
                }
            }
            _ = AssetLinks(parsing: bytes)?.packages
        case .pushItem:
            guard let value = try? JSONParser.parse(bytes: bytes) else { return }
            for (index, element) in (value["items"]?.arrayValue ?? [value]).enumerated() {
                if let item = try? SearchableItem.pushed(element, path: "items[\(index)]", owner: "fuzz").item {
                    _ = JSONWriter.bytes(item.json)
                    _ = Ranking.quality(of: item)
                }
            }
        case .shardAnswer:
            // What a router reads from a search node: statistics, or a search's answer.
            guard let value = try? JSONParser.parse(bytes: bytes) else { return }
            if let statistics = try? CorpusStatistics(json: value) { _ = CorpusStatistics.merged([statistics, statistics, statistics]).json }
            var merge = ResultMerge()
            for shard in 0..<3 { _ = merge.add(value, shard: shard, keep: 60, now: Date(timeIntervalSince1970: 1_800_000_000)) }
            for result in merge.page(offset: 10, limit: 20).results { _ = JSONWriter.bytes(result.hit.json(showingRecord: false)) }
            // A long request's feedback rounds: first answers, readings, the words chosen.
            let lists = [value["firstStage"], value].compactMap { $0.flatMap(ShardFeedback.firstStage) }
            let first = RelevanceFeedback.FirstAnswer(lists.enumerated().map { (shard: $0.offset, candidates: $0.element) })
            if let read = ShardFeedback.readings(value) {
                let ordered = first.ordered([(0, read.readings), (1, read.readings)])
                _ = RelevanceFeedback.candidates(of: read.readings, excluding: read.excluded)
                _ = RelevanceFeedback.expansion(of: ordered.isEmpty ? read.readings : ordered, excluding: read.excluded,
                                                frequency: { $0.count }, documentCount: 1000)
            }
            _ = try? ShardFeedback.feedback(value)
        case .devtools:
            // What a browser running a stranger's page writes on its DevTools pipe.
            guard let message = DevToolsMessage(bytes), case .event(_, _, let params) = message else { return }
            guard let request = PausedRequest(params: params) else { return }
            _ = request.refusal
            _ = WebURL(request.url)
            _ = request.headers.map { HTTPField($0.name, $0.value) }
        case .indexNow:
            // A notice as POST /indexnow's body, and the same bytes as GET's parameters.
            if let value = try? JSONParser.parse(bytes: bytes) { _ = try? IndexNowSubmission.reading(json: value) }
            let text = String(decoding: bytes, as: UTF8.self)
            let parts = text.split(separator: "&", maxSplits: 8).map { $0.split(separator: "=", maxSplits: 1) }
            _ = try? IndexNowSubmission.reading(query: { name in parts.first { $0.first.map(String.init) == name }?.last.map(String.init) })
        case .postings:
            // The first byte: the blocks the dictionary claims; the rest: the term's bytes.
            guard let blocks = bytes.first else { return }
            _ = PostingsCheck.read(Array(bytes.dropFirst()), blocks: Int(blocks), documents: 5_000)
        case .query:
            let text = String(decoding: bytes, as: UTF8.self)
            for platform in AppTarget.Platform.allCases {
                _ = try? QueryIndex.shared.index.search(SearchRequest(text, limit: 5, platform: platform, snippets: true))
            }
        case .url:
            let text = String(decoding: bytes, as: UTF8.self)
            if let url = WebURL(text) {
                _ = (url.origin, url.path, url.query, url.hasUserInfo, url.withoutFragment)
                _ = WebURL("../x/./y?z#w", relativeTo: url)
            }
            _ = WebURL(text, relativeTo: WebURL("https://fuzz.example/a/b/c")!)
        case .mediaType:
            _ = MediaType(String(decoding: bytes, as: UTF8.self))?.isJSON
        case .date:
            if let seconds = ISO8601.seconds(from: String(decoding: bytes, as: UTF8.self)) {
                _ = ISO8601.string(fromSeconds: seconds)
            }
        case .engagementToken:
            let tokens = EngagementToken(salt: Array("fuzz".utf8))
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            _ = tokens.verify(String(decoding: bytes, as: UTF8.self), now: now)
            // A token made of the input's lines as identifiers must verify to exactly those.
            let keys = String(decoding: bytes, as: UTF8.self).split(separator: "\n").prefix(30).map { ItemKey(owner: nil, identifier: String($0)) }
            if case .success(let digests) = tokens.verify(tokens.issue(for: keys, now: now), now: now) {
                precondition(digests == Set(keys.prefix(EngagementToken.maximumItems).map(EngagementToken.digest)))
            } else {
                preconditionFailure("a token just issued does not verify")
            }
        case .httpFraming:
            // Header lines as a client sends them.
            let fields = String(decoding: bytes, as: UTF8.self).split(separator: "\n").prefix(64).compactMap { line -> HTTPField? in
                guard let colon = line.firstIndex(of: ":") else { return nil }
                return HTTPField(String(line[..<colon]), String(line[line.index(after: colon)...]))
            }
            _ = MessageFraming.problem(fields)
        }
    }

    /// A content type chosen by the first byte, so the fuzzer reaches every charset path.
    private static func contentType(_ bytes: [UInt8]) -> String? {
        switch (bytes.first ?? 0) % 6 {
        case 0: nil
        case 1: "text/html; charset=utf-8"
        case 2: "text/html; charset=gbk"
        case 3: "text/html; charset=shift_jis"
        case 4: "text/html; charset=windows-1252"
        default: "application/xhtml+xml"
        }
    }

    /// The last few bytes as a path, so rules and the paths they are tried on co-vary.
    private static func tail(_ bytes: [UInt8]) -> String {
        "/" + String(decoding: bytes.suffix(24), as: UTF8.self)
    }
}

/// A small index the query target searches, made once per process in a temporary folder.
final class QueryIndex: @unchecked Sendable {
    // @unchecked: written once in init; SearchIndex serialises its own use.
    let index: SearchIndex

    static let shared = QueryIndex()

    private init() {
        let folder = NSTemporaryDirectory() + "searchlight-fuzz-\(getpid())"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        index = try! SearchIndex(path: folder + "/index.sqlite")
        let words = ["lemon", "tart", "直播", "篮球", "café", "tarte", "lemonade", "mountain", "boots", "walking"]
        let items = (0..<200).map { n in
            SearchableItem(uniqueIdentifier: "item-\(n)", title: "\(words[n % 10]) \(words[(n / 10) % 10])",
                           contentDescription: "Item \(n) about \(words[(n * 7) % 10])", keywords: [words[(n * 3) % 10]],
                           webURL: "https://fuzz.example/\(n)", rating: Double(n % 6), ratingCount: n)
        }
        try! index.upsert(items)
    }
}
