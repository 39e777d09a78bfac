import CCurl
import Dispatch
import Foundation
import HTTPTypes
import Synchronization
import WebURL

/// An HTTP client on one libcurl multi handle driven by one thread: any number of
/// transfers on a single event loop, no thread per request.
/// <https://curl.se/libcurl/c/libcurl-multi.html>
///
/// Requests are queued from any thread with ``start(_:completion:)``; the loop thread adds
/// them to the multi handle, runs `curl_multi_perform` / `curl_multi_poll`, drains
/// `curl_multi_info_read` and calls each completion **on the loop thread** (keep them short:
/// hand the response to another queue). `curl_multi_wakeup` interrupts the poll when work
/// arrives.
public final class HTTPClient: Sendable {
    public let configuration: FetchConfiguration
    private let state: Mutex<SharedState>
    // Only the loop thread touches the multi handle and the transfers, except for
    // curl_multi_wakeup, which libcurl documents as callable from any thread.
    private let loop: LoopState
    private let finished = DispatchSemaphore(value: 0)

    private struct SharedState: Sendable {
        var pending: [(FetchRequest, @Sendable (FetchResponse) -> Void)] = []
        var inFlight = 0
        var stopping = false
        var cancelInFlight = false
    }

    public init(configuration: FetchConfiguration) {
        CurlRuntime.prepare()
        self.configuration = configuration
        self.state = Mutex(SharedState())
        self.loop = LoopState(configuration: configuration)
        let thread = Thread { [self] in
            self.runLoop()
            self.finished.signal()
        }
        thread.name = "searchlight.fetch"
        thread.start()
    }

    /// Requests queued or running.
    public var inFlight: Int { state.withLock { $0.inFlight } }

    /// Queues a request; `completion` runs on the loop thread when it finishes (on the
    /// resolver's thread when a request through a proxy is refused before it starts).
    public func start(_ request: FetchRequest, completion: @escaping @Sendable (FetchResponse) -> Void) {
        if configuration.proxy != nil, request.connectTo == nil {
            // Resolving blocks: off the loop thread, then queued pinned to what was checked.
            let configuration = self.configuration
            Self.resolver.async { [self] in
                guard let url = WebURL(request.url) else {
                    completion(Self.failedResponse(request, .invalidURL(request.url)))
                    return
                }
                switch ProxyTarget.pin(url, configuration: configuration) {
                case .success(let entry):
                    var pinned = request
                    pinned.connectTo = entry
                    start(pinned, completion: completion)
                case .failure(let error):
                    completion(Self.failedResponse(request, error))
                }
            }
            return
        }
        let accepted = state.withLock { state -> Bool in
            guard !state.stopping else { return false }
            state.pending.append((request, completion))
            state.inFlight += 1
            return true
        }
        guard accepted else {
            completion(Self.failedResponse(request, .shutdown))
            return
        }
        curl_multi_wakeup(loop.multi)
    }

    /// Fetches one URL and waits for it; for one-off commands, not for crawling.
    public func fetch(_ request: FetchRequest) -> FetchResponse {
        FetchResponse.awaiting { start(request, completion: $0) }
    }

    /// Fetches `url`, following up to `maximumRedirects` redirects hop by hop; each hop
    /// is a request of its own. Returns the final response and the chain of redirect
    /// URLs that led to it.
    public func fetch(_ url: String, headers: [HTTPField] = [], maximumRedirects: Int) -> (FetchResponse, redirects: [String]) {
        var current = url
        var chain: [String] = []
        while true {
            let response = fetch(FetchRequest(url: current, headers: headers))
            guard response.isRedirect, let next = response.redirectURL else { return (response, chain) }
            guard chain.count < maximumRedirects, !chain.contains(next), next != url else {
                var failed = response
                failed.error = FetchError(.redirectLoop, "more than \(maximumRedirects) redirects, or a loop, after \(current)")
                return (failed, chain)
            }
            chain.append(next)
            current = next
        }
    }

    /// Stops the loop: with `cancelInFlight`, running transfers end with a `shutdown`
    /// error; otherwise they finish first. Returns when the loop thread has exited.
    public func shutdown(cancelInFlight: Bool = false) {
        state.withLock {
            $0.stopping = true
            $0.cancelInFlight = cancelInFlight
        }
        curl_multi_wakeup(loop.multi)
        finished.wait()
    }

    private static let resolver = DispatchQueue(label: "searchlight.fetch.proxy-resolver", attributes: .concurrent)

    static func failedResponse(_ request: FetchRequest, _ error: FetchError) -> FetchResponse {
        FetchResponse(request: request, status: 0, headers: [], statusLine: "", body: [], redirectURL: nil, remoteAddress: nil,
                      httpVersion: nil, requestHeaderBlock: "", error: error, totalTime: 0, wireBytes: 0)
    }

    // MARK: the loop thread

    private func runLoop() {
        var active: [UnsafeMutableRawPointer: Transfer] = [:]
        while true {
            let (newRequests, stopping, cancel) = state.withLock { state in
                defer { state.pending.removeAll() }
                return (state.pending, state.stopping, state.cancelInFlight)
            }
            for (request, completion) in newRequests {
                guard !(stopping && cancel) else {
                    finish(completion, Self.failedResponse(request, .shutdown))
                    continue
                }
                guard WebURL(request.url) != nil,
                    let transfer = Transfer(request: request, configuration: configuration, resolveList: loop.resolveList, completion: completion)
                else {
                    finish(completion, Self.failedResponse(request, .invalidURL(request.url)))
                    continue
                }
                active[transfer.easy] = transfer
                curl_multi_add_handle(loop.multi, transfer.easy)
            }
            if stopping, cancel {
                for transfer in active.values {
                    curl_multi_remove_handle(loop.multi, transfer.easy)
                    finish(transfer.completion, Self.failedResponse(transfer.request, .shutdown))
                }
                active.removeAll()
            }
            if stopping, active.isEmpty, state.withLock({ $0.pending.isEmpty }) { return }

            var running: Int32 = 0
            curl_multi_perform(loop.multi, &running)
            var remaining: Int32 = 0
            while let message = curl_multi_info_read(loop.multi, &remaining) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                    let transfer = active.removeValue(forKey: easy)
                else { continue }
                let result = message.pointee.data.result
                curl_multi_remove_handle(loop.multi, easy)
                finish(transfer.completion, transfer.makeResponse(result: result))
            }
            curl_multi_poll(loop.multi, nil, 0, 1000, nil)
        }
    }

    private func finish(_ completion: @Sendable (FetchResponse) -> Void, _ response: FetchResponse) {
        state.withLock { $0.inFlight -= 1 }
        completion(response)
    }
}

/// The multi handle and the shared `--resolve` list; freed when the client goes.
private final class LoopState: @unchecked Sendable {
    // @unchecked: `multi` and `resolveList` are written only in init and deinit; the
    // loop thread uses them in between, and other threads only call curl_multi_wakeup,
    // which libcurl documents as thread-safe.
    let multi: UnsafeMutableRawPointer
    let resolveList: UnsafeMutablePointer<curl_slist>?

    init(configuration: FetchConfiguration) {
        guard let multi = curl_multi_init() else { fatalError("curl_multi_init: out of memory") }
        self.multi = multi
        sl_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, configuration.maximumConnections)
        sl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, configuration.maximumConnectionsPerHost)
        var list: UnsafeMutablePointer<curl_slist>?
        for entry in configuration.resolve { list = curl_slist_append(list, entry) }
        self.resolveList = list
    }

    deinit {
        curl_multi_cleanup(multi)
        curl_slist_free_all(resolveList)
    }
}
