import Foundation
import HTTPServer
import HTTPTypes
import ItemModel
import SearchModel
import SearchlightClient
import SearchlightTestSupport
import Synchronization
import Testing

/// The Swift client against a real service on 127.0.0.1 (the `serve` code, over HTTP,
/// through URLSession): every call, and its typed errors.
@Suite struct SearchableIndexTests {
    static func recipe(_ id: String, _ title: String, domain: String? = "example.tartine.recipes") -> SearchableItem {
        var attributes = SearchableItemAttributeSet(contentType: "public.recipe", title: title)
        attributes.contentDescription = "A recipe from the Tartine bakery"
        attributes.keywords = ["baking"]
        attributes.webURL = URL(string: "https://tartine.example/recipes/\(id)")
        attributes.latitude = 48.85
        attributes.longitude = 2.35
        return SearchableItem(uniqueIdentifier: id, domainIdentifier: domain, attributeSet: attributes)
    }

    @Test func pushSearchAndDeleteAsCoreSpotlightDoes() async throws {
        let service = try RunningService()
        defer { service.stop() }
        let index = SearchableIndex(server: URL(string: service.baseURL)!, key: try service.key(owner: "tartine", domain: "tartine.example"))
        let written = try await index.indexSearchableItems([Self.recipe("flan", "Vanilla flan"), Self.recipe("tart", "Lemon tart"),
                                                            Self.recipe("bread", "Country bread", domain: "example.tartine.bread")])
        #expect(written == 3)

        var request = SearchRequest("lemon tart")
        request.facets = [.contentType]
        request.snippets = true
        let found = try await index.search(request)
        #expect(found.response.hits.first?.item.uniqueIdentifier == "tart")
        #expect(found.response.hits.first?.item.webURL == "https://tartine.example/recipes/tart")
        #expect(found.response.facets?.counts[.contentType]?.first?.value == "public.recipe")
        #expect(found.engagementToken != nil)

        var near = SearchRequest("recipe")
        near.filter.near = GeoCircle(center: GeoPoint(latitude: 48.85, longitude: 2.35), radius: 5)
        near.sort = .distance
        #expect(try await index.search(near).response.hits.count == 3)

        // Engagement without a key, with the answer's token, as the search page reports it.
        let anonymous = SearchableIndex(server: URL(string: service.baseURL)!)
        let seen = try await anonymous.search(SearchRequest("lemon"))
        try await anonymous.reportEngagement([EngagementEvent(identifier: "tart", kind: .click)], query: "lemon", results: seen)

        #expect(try await index.deleteSearchableItems(withIdentifiers: ["flan"]) == 1)
        #expect(try await index.deleteSearchableItems(withDomainIdentifiers: ["example.tartine.bread"]) == 1)
        #expect(try await index.search(SearchRequest("recipe")).response.hits.map(\.item.uniqueIdentifier) == ["tart"])
        #expect(try await index.deleteAllSearchableItems() == 1)
        #expect(try await index.search(SearchRequest("recipe")).response.hits.isEmpty)
    }

    /// An app's back end asks where its own item ranks for a query, and why (issue 56).
    @Test func findabilityOfAnOwnItem() async throws {
        let service = try RunningService()
        defer { service.stop() }
        let index = SearchableIndex(server: URL(string: service.baseURL)!, key: try service.key(owner: "tartine", domain: "tartine.example"))
        // Enough items that a word in one of them weighs something (BM25's idf).
        let others = ["Country bread", "Rye loaf", "Brioche", "Apple pie", "Plum cake", "Onion soup"].enumerated().map { Self.recipe("r\($0.offset)", $0.element) }
        _ = try await index.indexSearchableItems([Self.recipe("flan", "Vanilla flan"), Self.recipe("tart", "Lemon tart")] + others)
        let report = try await index.findability(ofItem: "flan", query: "lemon flan")
        #expect(report.rank == 1 && report.matches)
        #expect(report.findings == [.missingWords(["lemon"])], "\(report.findings)")
        #expect(report.words.first { $0.word == "flan" }?.forms.first?.occurrences == [.title: 1])
        #expect((report.score?.total ?? 0) > 0, "\(report.score.map { "\($0)" } ?? "nil")")
        await #expect {
            try await index.findability(ofItem: "nobody", query: "lemon")
        } throws: { ($0 as? SearchlightError)?.code == .notFound }
    }

    @Test func aBatchCommitsOnlyOverTheStateItBeganWith() async throws {
        let service = try RunningService()
        defer { service.stop() }
        let index = SearchableIndex(server: URL(string: service.baseURL)!, key: try service.key(owner: "tartine", domain: "tartine.example"))
        #expect(try await index.fetchLastClientState(batch: "recipes") == nil)
        var first = index.beginBatch(named: "recipes", expectedClientState: nil)
        first.indexSearchableItems([Self.recipe("flan", "Vanilla flan"), Self.recipe("tart", "Lemon tart")])
        try await index.endBatch(first, clientState: "v1")
        #expect(try await index.fetchLastClientState(batch: "recipes") == "v1")

        var stale = index.beginBatch(named: "recipes", expectedClientState: nil)
        stale.deleteSearchableItems(withIdentifiers: ["flan"])
        await #expect {
            try await index.endBatch(stale, clientState: "v2")
        } throws: { error in
            let error = error as? SearchlightError
            return error?.code == .conflict && error?.status == 409 && error?.serverCode == "conflict"
        }
        #expect(try await index.search(SearchRequest("flan")).response.hits.count == 1, "nothing of a refused batch is written")

        var next = index.beginBatch(named: "recipes", expectedClientState: "v1")
        next.deleteSearchableItems(withIdentifiers: ["flan"])
        try await index.endBatch(next, clientState: "v2")
        #expect(try await index.search(SearchRequest("flan")).response.hits.isEmpty)
    }

    @Test func errorsKeepTheAPIsCodeMessageAndField() async throws {
        let service = try RunningService()
        defer { service.stop() }
        let server = URL(string: service.baseURL)!
        let wrong = SearchableIndex(server: server, key: "sl_not_a_key")
        await #expect {
            try await wrong.indexSearchableItems([Self.recipe("flan", "Vanilla flan")])
        } throws: { error in
            let error = error as? SearchlightError
            return error?.code == .unauthorized && error?.status == 401 && error?.serverCode != nil
        }
        let index = SearchableIndex(server: server, key: try service.key(owner: "tartine", domain: "tartine.example"))
        var request = SearchRequest("tart")
        request.filter.near = GeoCircle(center: GeoPoint(latitude: 48.85, longitude: 2.35), radius: 1e9)
        await #expect {
            try await index.search(request)
        } throws: { error in
            let error = error as? SearchlightError
            return error?.code == .badRequest && error?.field == "radius"
        }
        await #expect {
            try await index.source(ofItem: "no-such-item")
        } throws: { ($0 as? SearchlightError)?.code == .notFound }
        let nowhere = SearchableIndex(server: URL(string: "http://127.0.0.1:9")!)
        await #expect {
            try await nowhere.search(SearchRequest("tart"))
        } throws: { ($0 as? SearchlightError)?.code == .unreachable }
    }

    @Test func anActivityIsPublishedOnceEnoughDevicesReportIt() async throws {
        let service = try RunningService(activityThreshold: 1)
        defer { service.stop() }
        let index = SearchableIndex(server: URL(string: service.baseURL)!, key: try service.key(owner: "tartine", domain: "tartine.example"))
        try await index.publish(PublicActivity(activityType: "com.tartine.view-recipe", title: "Almond croissant",
                                               webpageURL: URL(string: "https://tartine.example/recipes/croissant")!, keywords: ["pastry"],
                                               deviceIdentifier: "device-1"))
        #expect(try await index.search(SearchRequest("croissant")).response.hits.count == 1)
    }

    /// 429 with `Retry-After: 1` is tried again after a second; 503 after the back-off.
    @Test func aRateLimitedCallIsTriedAgainAfterRetryAfter() async throws {
        let asked = Mutex<[Date]>([])
        var configuration = HTTPServer.Configuration()
        configuration.port = 0
        let server = try HTTPServer(configuration: configuration) { _ in
            let count = asked.withLock { $0.append(Date()); return $0.count }
            switch count {
            case 1: return HTTPServerResponse(status: 429, headers: [HTTPField("Retry-After", "1")], body: .bytes(Array(#"{"error":{"code":"rate-limited","message":"slow down"}}"#.utf8)))
            case 2: return HTTPServerResponse(status: 503, headers: [], body: .bytes(Array(#"{"error":{"code":"store-unavailable","message":"later"}}"#.utf8)))
            default: return HTTPServerResponse(status: 200, contentType: "application/json", body: Array(#"{"name":"recipes","clientState":"v7"}"#.utf8))
            }
        }
        defer { server.stop(gracePeriod: 0) }
        let index = SearchableIndex(server: URL(string: "http://127.0.0.1:\(server.port)")!, retry: RetryPolicy(attempts: 3, initialDelay: 0.05))
        #expect(try await index.fetchLastClientState(batch: "recipes") == "v7")
        let times = asked.withLock { $0 }
        #expect(times.count == 3)
        #expect(times[1].timeIntervalSince(times[0]) >= 1, "Retry-After honoured")

        asked.withLock { $0 = [] }
        let once = SearchableIndex(server: URL(string: "http://127.0.0.1:\(server.port)")!, retry: .none)
        await #expect {
            try await once.fetchLastClientState(batch: "recipes")
        } throws: { error in
            let error = error as? SearchlightError
            return error?.code == .rateLimited && error?.serverCode == "rate-limited" && error?.message.contains("slow down") == true
        }
    }

    /// A call whose task is cancelled ends at once with `cancelled`, not when the server answers.
    @Test func aCancelledCallEndsAtOnce() async throws {
        let release = DispatchSemaphore(value: 0)
        let arrived = DispatchSemaphore(value: 0)
        var configuration = HTTPServer.Configuration()
        configuration.port = 0
        configuration.threading = .threadPerConnection
        let server = try HTTPServer(configuration: configuration) { _ in
            arrived.signal()
            _ = release.wait(timeout: .now() + 60)
            return .text("late")
        }
        defer {
            release.signal()
            server.stop(gracePeriod: 0)
        }
        let index = SearchableIndex(server: URL(string: "http://127.0.0.1:\(server.port)")!, timeout: 60)
        let call = Task { try await index.search(SearchRequest("tart")) }
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                arrived.wait()
                continuation.resume()
            }
        }
        let started = Date()
        call.cancel()
        let result = await call.result
        #expect(Date().timeIntervalSince(started) < 10)
        guard case .failure(let error) = result else {
            Issue.record("a cancelled call answered")
            return
        }
        #expect((error as? SearchlightError)?.code == .cancelled, "\(error)")
    }

    /// An answer that never ends (or one that declares more than the limit) is cut at the
    /// transport's limit with `tooLarge`, not buffered; a server's long message is kept short.
    @Test func anEndlessAnswerIsCutAndALongMessageKeptShort() async throws {
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 64 * 1024)
        let longMessage = String(repeating: "é", count: 50_000)
        var configuration = HTTPServer.Configuration()
        configuration.port = 0
        let server = try HTTPServer(configuration: configuration) { request in
            switch request.path {
            case "/v1/search": HTTPServerResponse(status: 200, body: .stream { chunk })
            case "/v1/batches/declared": HTTPServerResponse(status: 200, contentType: "application/json", body: [UInt8](repeating: 32, count: 3 << 20))
            default: HTTPServerResponse(status: 400, contentType: "application/json",
                                        body: Array(#"{"error":{"code":"invalid-field","message":"\#(longMessage)","field":"q"}}"#.utf8))
            }
        }
        defer { server.stop(gracePeriod: 0) }
        let origin = URL(string: "http://127.0.0.1:\(server.port)")!
        let index = SearchableIndex(server: origin, timeout: 60, transport: URLSessionTransport(maximumResponseBytes: 1 << 20))
        await #expect {
            try await index.search(SearchRequest("tart"))
        } throws: { error in
            (error as? SearchlightError)?.code == .tooLarge
        }
        await #expect {
            try await index.fetchLastClientState(batch: "declared")
        } throws: { error in
            (error as? SearchlightError)?.code == .tooLarge
        }
        await #expect {
            try await index.fetchLastClientState(batch: "other")
        } throws: { error in
            guard let error = error as? SearchlightError else { return false }
            return error.code == .badRequest && error.field == "q" && (error.serverMessage?.utf8.count ?? .max) <= 1024
                && error.message.utf8.count < 1200
        }
    }

    @Test func theRetryRuleIsAValue() {
        let policy = RetryPolicy(attempts: 3, initialDelay: 0.5, maximumDelay: 4)
        #expect(policy.delay(afterAttempt: 1, status: 500, retryAfter: nil, jitter: 1) == nil, "only 429 and 503")
        #expect(policy.delay(afterAttempt: 1, status: 429, retryAfter: "2", jitter: 0) == 2)
        #expect(policy.delay(afterAttempt: 1, status: 503, retryAfter: "120", jitter: 0) == 4, "never past the maximum")
        #expect(policy.delay(afterAttempt: 2, status: 503, retryAfter: nil, jitter: 1) == 1)
        #expect(policy.delay(afterAttempt: 2, status: 503, retryAfter: "Wed, 21 Oct 2015 07:28:00 GMT", jitter: 0) == 0.5)
        #expect(policy.delay(afterAttempt: 3, status: 429, retryAfter: "1", jitter: 0) == nil, "three tries in all")
    }
}
