import Foundation
import Items
import JSON
@testable import Service
import ServiceAPI
import Synchronization
import Testing
import WebURL

/// IndexNow notices read as the protocol writes them, and decided without I/O: a frontier
/// and key files played by values.
@Suite struct IndexNowTests {
    static let key = "0f3c9a1b2d4e5f60"

    final class Frontier: IndexNowFrontier {
        let known: Set<String>
        let due = Mutex<[String]>([])
        init(known: Set<String>) { self.known = known }
        func knows(origin: String) throws -> Bool { known.contains(origin) }
        func makeDue(_ urls: [WebURL], now: Date) throws -> Int {
            due.withLock { due in
                let added = urls.filter { !due.contains($0.string) }.count
                due += urls.map(\.string)
                return added
            }
        }
    }

    final class KeyFiles: IndexNowKeyFetcher {
        let files: [String: IndexNowKeyFile]
        let fetched = Mutex<[String]>([])
        init(_ files: [String: IndexNowKeyFile]) { self.files = files }
        func fetch(_ url: WebURL) -> IndexNowKeyFile {
            fetched.withLock { $0.append(url.string) }
            return files[url.string] ?? .missing("HTTP 404")
        }
    }

    static func post(_ body: JSONValue) throws(APIError) -> IndexNowSubmission {
        do {
            return try IndexNowSubmission(body: try FieldReader(value: body, path: "body"))
        } catch let error as APIError {
            throw error
        } catch {
            throw APIError(400, "bad-request", "\(error)")
        }
    }

    /// The status and code `work` is refused with; nil when it is not.
    static func status(_ work: () throws -> Void) -> (Int, String)? {
        do {
            try work()
            return nil
        } catch let error as APIError {
            return (error.status, error.code)
        } catch {
            return (0, "\(error)")
        }
    }

    @Test func noticesAreReadAsTheProtocolWritesThem() throws {
        let single = try IndexNowSubmission { ["url": "https://www.example.com/product.html", "key": Self.key][$0] }
        #expect(single.host == "www.example.com" && single.urls.map(\.string) == ["https://www.example.com/product.html"])
        #expect(single.keyLocation.string == "https://www.example.com/\(Self.key).txt", "the protocol's default place")
        let list = try Self.post(["host": "WWW.example.com", "key": .string(Self.key),
                                  "urlList": ["https://www.example.com/url1", "http://www.example.com/folder/url2", "https://www.example.com/url1#top"]])
        #expect(list.urls.map(\.string) == ["https://www.example.com/url1", "http://www.example.com/folder/url2"], "once each, http and https mixed")
        #expect(list.origins == ["https://www.example.com", "http://www.example.com"])
        let located = try Self.post(["host": "www.example.com", "key": .string(Self.key), "keyLocation": "https://www.example.com/catalog/key.txt",
                                     "urlList": ["https://www.example.com/catalog/a"]])
        #expect(located.keyLocation.string == "https://www.example.com/catalog/key.txt")

        let refusals: [(JSONValue, Int, String)] = [
            (["host": "www.example.com", "key": "short", "urlList": ["https://www.example.com/"]], 422, "invalid-key"),
            (["host": "www.example.com", "key": "has_underscore_1", "urlList": ["https://www.example.com/"]], 422, "invalid-key"),
            (["host": "www.example.com", "key": .string(Self.key), "urlList": ["https://other.example.com/"]], 422, "url-not-of-host"),
            (["host": "www.example.com", "key": .string(Self.key), "urlList": ["https://www.example.com/help/a"],
              "keyLocation": "https://www.example.com/catalog/key.txt"], 422, "url-not-under-key-location"),
            (["host": "www.example.com", "key": .string(Self.key), "urlList": ["https://www.example.com/a"],
              "keyLocation": "https://elsewhere.example/key.txt"], 422, "key-location-not-of-host"),
            (["host": "www.example.com", "key": .string(Self.key), "urlList": ["ftp://www.example.com/a"]], 400, "invalid-url"),
            (["host": "www.example.com", "key": .string(Self.key), "urlList": []], 400, "bad-request"),
            (["host": "www.example.com", "key": .string(Self.key), "urlList": .array((1...5).map { .string("https://www.example.com:\(8000 + $0)/") })],
             422, "too-many-origins"),
            (["host": "www.example.com", "key": .string(Self.key)], 400, "bad-request"),
            (["host": "www.example.com", "key": .string(Self.key), "urlList": .array((0...10_000).map { .string("https://www.example.com/\($0)") })],
             400, "bad-request"),
        ]
        for (body, status, code) in refusals {
            let refused = Self.status { _ = try Self.post(body) }
            #expect(refused?.0 == status && refused?.1 == code, "\(body): \(String(describing: refused))")
        }
    }

    @Test func onlyKnownHostsWithTheirOwnKeyMakeURLsDue() throws {
        let frontier = Frontier(known: ["https://www.example.com"])
        let keys = KeyFiles(["https://www.example.com/\(Self.key).txt": .text("\u{FEFF}\(Self.key)\r\n")])
        let desk = IndexNowDesk(frontier: frontier, fetcher: keys)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let notice = try Self.post(["host": "www.example.com", "key": .string(Self.key),
                                    "urlList": ["https://www.example.com/new", "http://www.example.com/plain"]])
        let receipt = try desk.receive(notice, now: now)
        #expect(receipt == IndexNowDesk.Receipt(due: 1, added: 1, ignored: 1), "the http origin was never crawled")
        #expect(frontier.due.withLock { $0 } == ["https://www.example.com/new"])
        _ = try desk.receive(notice, now: now.addingTimeInterval(1))
        #expect(keys.fetched.withLock { $0.count } == 1, "a key that held is trusted for a while")

        // A host the crawl does not know: refused before any key file is fetched.
        let stranger = try IndexNowSubmission { ["url": "https://stranger.example/x", "key": Self.key][$0] }
        #expect(Self.status { _ = try desk.receive(stranger, now: now) }?.1 == "unknown-host")
        #expect(keys.fetched.withLock { $0 } == ["https://www.example.com/\(Self.key).txt"])

        // A key the host does not serve, or serves another one: 403, remembered.
        let wrong = try IndexNowSubmission { ["url": "https://www.example.com/x", "key": "ffffffffffffffff"][$0] }
        #expect(Self.status { _ = try desk.receive(wrong, now: now) }?.0 == 403)
        #expect(Self.status { _ = try desk.receive(wrong, now: now.addingTimeInterval(5)) }?.0 == 403)
        #expect(keys.fetched.withLock { $0.count } == 2, "a refused key is not fetched again at once")
        let other = IndexNowDesk(frontier: frontier, fetcher: KeyFiles(["https://www.example.com/\(Self.key).txt": .text("another-key-entirely")]))
        #expect(Self.status { _ = try other.receive(notice, now: now) }?.1 == "key-not-valid")
        #expect(frontier.due.withLock { $0.count } == 2, "nothing refused was made due")
    }

    @Test func budgetsPerHostAndPerKeyHold() throws {
        let frontier = Frontier(known: ["https://www.example.com"])
        let keys = KeyFiles(["https://www.example.com/\(Self.key).txt": .text(Self.key)])
        var limits = IndexNowDesk.Limits()
        limits.urlsPerHostPerDay = 100
        let desk = IndexNowDesk(frontier: frontier, fetcher: keys, limits: limits)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        func notice(_ count: Int, from start: Int = 0) throws -> IndexNowSubmission {
            try Self.post(["host": "www.example.com", "key": .string(Self.key),
                           "urlList": .array((start..<(start + count)).map { .string("https://www.example.com/p\($0)") })])
        }
        _ = try desk.receive(try notice(80), now: now)
        let over = Self.status { _ = try desk.receive(try notice(30, from: 80), now: now) }
        #expect(over?.0 == 429, "100 URLs a day for the host")
        #expect(try desk.receive(try notice(20, from: 80), now: now).due == 20)
        // Sixty notices at once for a proved key (the first, which proves it, counts against its
        // sender's network), then one a second.
        let small = IndexNowDesk(frontier: frontier, fetcher: keys)
        for step in 0..<61 { _ = try small.receive(try notice(1), now: now.addingTimeInterval(Double(step) / 1000)) }
        #expect(Self.status { _ = try small.receive(try notice(1), now: now.addingTimeInterval(0.1)) }?.0 == 429)
        #expect(throws: Never.self) { try small.receive(try notice(1), now: now.addingTimeInterval(1.2)) }
        // Key files for keys never proved: three fetches at once from one network, then one a minute.
        let guesses = IndexNowDesk(frontier: frontier, fetcher: keys)
        for attempt in 0..<3 {
            let guess = try IndexNowSubmission { ["url": "https://www.example.com/x", "key": "guess-\(attempt)-0000"][$0] }
            #expect(Self.status { _ = try guesses.receive(guess, now: now) }?.0 == 403)
        }
        let fourth = try IndexNowSubmission { ["url": "https://www.example.com/x", "key": "guess-3-0000"][$0] }
        #expect(Self.status { _ = try guesses.receive(fourth, now: now) }?.0 == 429)
    }

    /// A flood of random keys costs its sender only (issue 59): it neither fills the per-key
    /// buckets so that another host's proved key gets 429, nor spends the host's key-file
    /// fetches so that the site's own new key is refused.
    @Test func randomKeysCostTheirSenderNotAProvedKey() throws {
        let frontier = Frontier(known: ["https://a.example", "https://b.example"])
        let newKey = "1234567890abcdef"
        let keys = KeyFiles(["https://b.example/\(Self.key).txt": .text(Self.key), "https://a.example/\(newKey).txt": .text(newKey)])
        let desk = IndexNowDesk(frontier: frontier, fetcher: keys)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        // B proves its key first.
        let b = try IndexNowSubmission { ["url": "https://b.example/page", "key": Self.key][$0] }
        _ = try desk.receive(b, from: "v4:b", now: now)
        // An attacker sends 10,050 notices for A with random keys from one network.
        var refused = 0
        for attempt in 0..<10_050 {
            let guess = try IndexNowSubmission { ["url": "https://a.example/x", "key": String(format: "guess%011d", attempt)][$0] }
            if Self.status({ _ = try desk.receive(guess, from: "v4:evil", now: now.addingTimeInterval(1)) })?.0 == 429 { refused += 1 }
        }
        #expect(refused >= 10_000, "the sender's network is limited")
        #expect(keys.fetched.withLock { $0.count } <= 4, "its guesses fetched at most its own budget of key files")
        // B's proved key still passes; A's own new key, sent from the site's network, is fetched and taken.
        #expect(try desk.receive(b, from: "v4:b", now: now.addingTimeInterval(2)).due == 1)
        let site = try IndexNowSubmission { ["url": "https://a.example/new", "key": newKey][$0] }
        #expect(try desk.receive(site, from: "v4:site", now: now.addingTimeInterval(2)).due == 1)
    }

    /// The key file is read only from an origin the crawl visits: never another port of
    /// the host (issue 59).
    @Test func aKeyLocationOnAnotherPortIsRefusedUnfetched() throws {
        let frontier = Frontier(known: ["https://www.example.com"])
        let keys = KeyFiles([:])
        let desk = IndexNowDesk(frontier: frontier, fetcher: keys)
        let notice = try Self.post(["host": "www.example.com", "key": .string(Self.key), "keyLocation": "https://www.example.com:6379/key.txt",
                                    "urlList": ["https://www.example.com/a"]])
        #expect(Self.status { _ = try desk.receive(notice, now: Date()) }?.1 == "key-location-not-crawled")
        #expect(keys.fetched.withLock { $0.isEmpty })
    }
}
