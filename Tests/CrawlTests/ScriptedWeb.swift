import Crawl
import Dispatch
import Fetch
import Foundation
import HTTPTypes
import Items
import StoreSeams
import Synchronization

/// A web in memory for the engine's tests: a response per URL (404 for the rest), every
/// request recorded with the crawl clock's time, answers delivered on another thread as
/// libcurl's are.
final class ScriptedWeb: Downloader {
    typealias Responder = @Sendable (FetchRequest) -> FetchResponse

    private struct State {
        var routes: [String: Responder] = [:]
        var requests: [(url: String, headers: [HTTPField], time: Date)] = []
    }

    private let state = Mutex(State())
    private let clock: CrawlClock
    private let queue = DispatchQueue(label: "scripted-web", attributes: .concurrent)

    init(clock: CrawlClock) {
        self.clock = clock
    }

    /// Serves `url` with whatever `responder` answers (it may look at the request).
    func route(_ url: String, _ responder: @escaping Responder) {
        state.withLock { $0.routes[url] = responder }
    }

    func page(_ url: String, _ html: String, headers: [HTTPField] = []) {
        route(url) { FetchResponse(request: $0, status: 200, headers: [HTTPField("Content-Type", "text/html; charset=utf-8")] + headers, body: Array(html.utf8)) }
    }

    func text(_ url: String, _ text: String, status: Int = 200, contentType: String = "text/plain") {
        route(url) { FetchResponse(request: $0, status: status, headers: [HTTPField("Content-Type", contentType)], body: Array(text.utf8)) }
    }

    func status(_ url: String, _ status: Int, headers: [HTTPField] = []) {
        route(url) { FetchResponse(request: $0, status: status, headers: headers) }
    }

    func redirect(_ url: String, to target: String, status: Int = 301) {
        route(url) { FetchResponse(request: $0, status: status, headers: [HTTPField("Location", target)], redirectURL: target) }
    }

    /// Every URL requested, in order.
    var requested: [String] { state.withLock { $0.requests.map(\.url) } }

    /// When each request to URLs starting with `prefix` was sent, by the crawl's clock.
    func times(_ prefix: String) -> [Date] {
        state.withLock { $0.requests.filter { $0.url.hasPrefix(prefix) }.map(\.time) }
    }

    func headers(of url: String) -> [[HTTPField]] {
        state.withLock { $0.requests.filter { $0.url == url }.map(\.headers) }
    }

    func forgetRequests() { state.withLock { $0.requests.removeAll() } }

    func start(_ request: FetchRequest, completion: @escaping @Sendable (FetchResponse) -> Void) {
        let now = clock.now
        let responder = state.withLock { state in
            state.requests.append((request.url, request.headers, now))
            return state.routes[request.url]
        }
        let response = responder?(request) ?? FetchResponse(request: request, status: 404, headers: [HTTPField("Content-Type", "text/plain")])
        queue.async { completion(response) }
    }

    func shutdown(cancelInFlight: Bool) {}
}

/// A crawl clock that runs `speed` times faster than real time and can jump ahead, so
/// that politeness gaps, back-offs and revisits take milliseconds.
final class FastClock: Sendable {
    private let realStart = Date()
    private let virtualStart = Date(timeIntervalSince1970: 1_800_000_000)
    private let speed: Double
    private let offset = Mutex<TimeInterval>(0)

    init(speed: Double = 100) {
        self.speed = speed
    }

    var clock: CrawlClock {
        CrawlClock { [self] in
            virtualStart.addingTimeInterval(Date().timeIntervalSince(realStart) * speed + offset.withLock { $0 })
        }
    }

    func advance(by seconds: TimeInterval) {
        offset.withLock { $0 += seconds }
    }
}
