import Dispatch
import FoundationEssentials
import Fetch
import HTTPTypes
import JSON
import Synchronization
import WebURL

/// One page rendered in its own browser context (no cookies or storage from any other
/// page), every request it makes paused and answered by the renderer: the page's own
/// document from the static response the crawl already has, scripts and data through
/// ``SubresourceFetching``, the rest refused. Settled when the load event has fired and no
/// request has been open for ``Renderer/Configuration/settle`` seconds.
final class PageRender: Sendable {
    private struct State {
        var loaded = false
        var open = 0
        var lastActivity = DispatchTime.now()
        var crashed = false
        var gone = false
        var requests = 0
        var documentServed = false
        /// Documents the main frame committed: the first is the page's own.
        var committed = 0
        /// The main frame committed another document than the page's.
        var navigatedAway = false
        /// The page grew past a bound while it rendered (the browser's memory, the document's length).
        var outgrew = false
        var outcome = RenderOutcome()
    }

    /// How often a render looks at the browser's memory and the document's length while the
    /// page runs: what a page allocates past the bound in this time is the overshoot.
    static let watchInterval = 0.25

    private let browser: Browser
    /// The browser this render runs in (``Browser/start()``).
    private let generation: Int
    private let subresources: any SubresourceFetching
    private let configuration: Renderer.Configuration
    private let url: WebURL
    private let document: RenderDocument
    private let budget: ByteBudget
    private let state = Mutex(State())
    private let changed = DispatchSemaphore(value: 0)

    init(browser: Browser, generation: Int, subresources: any SubresourceFetching, configuration: Renderer.Configuration, url: WebURL,
         document: RenderDocument) {
        self.browser = browser
        self.generation = generation
        self.subresources = subresources
        self.configuration = configuration
        self.url = url
        self.document = document
        budget = ByteBudget(configuration.maximumBytes)
    }

    /// A tab in a browser context of its own, kept for one host's pages: the pages of a host
    /// share its cookies and storage, no other host's do; navigating it again costs a
    /// fraction of a new context's renderer process.
    struct Tab: Sendable {
        let generation: Int
        let context: String
        let session: String
    }

    /// How long each command opening a tab may take: a browser starting its first renderer on
    /// a busy machine takes seconds (5 s timed out under CI's load), and the page's render
    /// budget (`--render-timeout`) is the page's, not the browser's; one that does not answer
    /// in this long is stuck.
    static let openTimeout = 30.0

    /// Opens a tab in a new context of the browser of `generation`, every request of its
    /// pages paused for the renderer.
    static func open(_ browser: Browser, generation: Int) throws(Browser.Failure) -> Tab {
        func send(_ method: String, _ params: JSONObject, session: String? = nil) throws(Browser.Failure) -> JSONValue {
            try browser.send(method, params, session: session, generation: generation, timeout: openTimeout)
        }
        guard let context = try send("Target.createBrowserContext", JSONObject([("disposeOnDetach", true)]))["browserContextId"]?.stringValue else {
            throw .refused("no browser context")
        }
        let tab = { () throws(Browser.Failure) -> Tab in
            let target = try send("Target.createTarget", JSONObject([("url", "about:blank"), ("browserContextId", .string(context))]))["targetId"]?.stringValue
            guard let target else { throw .refused("no target") }
            let session = try send("Target.attachToTarget", JSONObject([("targetId", .string(target)), ("flatten", true)]))["sessionId"]?.stringValue
            guard let session else { throw .refused("no session") }
            for (method, params) in [
                ("Fetch.enable", JSONObject([("patterns", [["urlPattern": "*", "requestStage": "Request"]])])),
                ("Page.enable", JSONObject([])), ("Inspector.enable", JSONObject([])),
            ] {
                _ = try send(method, params, session: session)
            }
            return Tab(generation: generation, context: context, session: session)
        }
        do throws(Browser.Failure) {
            return try tab()
        } catch {
            close(Tab(generation: generation, context: context, session: ""), browser: browser)
            throw error
        }
    }

    /// Closes a tab's context (and the tab).
    static func close(_ tab: Tab, browser: Browser) {
        do {
            _ = try browser.send("Target.disposeBrowserContext", JSONObject([("browserContextId", .string(tab.context))]), generation: tab.generation,
                                 timeout: 5)
        } catch .gone {
        } catch {
            // A browser that cannot close a tab is not trusted with the next page.
            browser.kill(generation: tab.generation)
        }
    }

    /// Renders the page in `tab`; `Browser.Failure.gone` when the browser went away meanwhile.
    func run(in tab: Tab) throws(Browser.Failure) -> RenderOutcome {
        let started = DispatchTime.now()
        let deadline = started + configuration.timeout
        let session = tab.session
        browser.subscribe(session: session) { [self] method, params in event(method, params, session: session) }
        defer { browser.unsubscribe(session: session) }
        _ = try send("Page.navigate", JSONObject([("url", .string(url.string))]), session: session, timeout: remaining(deadline))

        var outcome = waitUntilSettled(deadline: deadline, session: session)
        if outcome.failure == nil {
            outcome.html = try snapshot(session: session, deadline: deadline, outcome: &outcome)
        }
        outcome.seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        // A page that outgrew its bounds ended its browser: the page is what failed, not the browser.
        if state.withLock({ $0.gone && !$0.outgrew }) { throw .gone }
        return outcome
    }

    private func send(_ method: String, _ params: JSONObject, session: String? = nil, timeout: Double) throws(Browser.Failure) -> JSONValue {
        try browser.send(method, params, session: session, generation: generation, timeout: timeout)
    }

    private func remaining(_ deadline: DispatchTime) -> Double {
        max(0.05, Double(Int64(deadline.uptimeNanoseconds) - Int64(DispatchTime.now().uptimeNanoseconds)) / 1e9)
    }

    /// Waits for the load event and a quiet network, or the deadline, or a crash — looking
    /// every ``watchInterval`` at what the page has grown to (``outgrown(session:)``): one past
    /// a bound ends as ``RenderFailure/tooLarge`` there and then, its browser killed (the next
    /// render starts another), rather than when it settles or times out.
    private func waitUntilSettled(deadline: DispatchTime, session: String) -> RenderOutcome {
        var nextWatch = DispatchTime.now() + Self.watchInterval
        while true {
            if DispatchTime.now() >= nextWatch {
                nextWatch = DispatchTime.now() + Self.watchInterval
                if outgrown(session: session) {
                    state.withLock { $0.outgrew = true }
                    browser.kill(generation: generation)
                    var outcome = state.withLock { $0.outcome }
                    outcome.failure = .tooLarge
                    return outcome
                }
            }
            let (settled, wake, outcome) = state.withLock { state -> (Bool?, DispatchTime, RenderOutcome) in
                var outcome = state.outcome
                if state.crashed || state.gone {
                    outcome.failure = .failed
                    return (false, deadline, outcome)
                }
                let quietAt = state.lastActivity + configuration.settle
                if state.loaded, state.open == 0, DispatchTime.now() >= quietAt { return (true, deadline, outcome) }
                if DispatchTime.now() >= deadline {
                    // A page that loaded but keeps asking (polling) is read as it is; one that
                    // never loaded is not.
                    if !state.loaded { outcome.failure = .timeout }
                    return (state.loaded, deadline, outcome)
                }
                return (nil, state.loaded && state.open == 0 ? min(quietAt, deadline) : deadline, outcome)
            }
            if settled != nil { return outcome }
            _ = changed.wait(timeout: min(wake, nextWatch))
        }
    }

    /// Whether the page has grown past a bound: the browser's memory (proportional set size
    /// of all its processes, ``Browser/Configuration/hardResidentBytes``), or the
    /// document's length, asked of the page with a short timeout (a page whose script holds
    /// its thread is left to the memory bound and the render timeout).
    private func outgrown(session: String) -> Bool {
        if browser.isPastHardBound { return true }
        let limit = configuration.maximumDocumentCharacters
        let probe = "(() => { const r = document.documentElement; return r ? r.outerHTML.length > \(limit) : false; })()"
        guard let answer = try? send("Runtime.evaluate", JSONObject([("expression", .string(probe)), ("returnByValue", true)]), session: session,
                                     timeout: Self.watchInterval)
        else { return false }
        return answer["result"]?["value"] == true
    }

    /// The document as the browser holds it now, unless it is past the bound.
    private func snapshot(session: String, deadline: DispatchTime, outcome: inout RenderOutcome) throws(Browser.Failure) -> [UInt8]? {
        let limit = configuration.maximumDocumentCharacters
        let expression = """
            (() => { const root = document.documentElement; if (!root) return ''; \
            const html = root.outerHTML; return html.length > \(limit) ? null : '<!DOCTYPE html>' + html; })()
            """
        let answer: JSONValue
        do {
            answer = try send(
                "Runtime.evaluate", JSONObject([("expression", .string(expression)), ("returnByValue", true)]), session: session,
                timeout: max(1, remaining(deadline)))
        } catch .timeout {
            // The page's scripts hold its thread (a loop after the load): nothing to read.
            outcome.failure = .timeout
            return nil
        }
        guard let value = answer["result"]?["value"] else {
            outcome.failure = .failed
            return nil
        }
        // The document must still be the page's: a script that navigated away (its navigation
        // refused) leaves the browser's error page, which is not the page. A router's
        // `history.pushState` is not a navigation and keeps the document.
        if state.withLock({ $0.navigatedAway }) {
            outcome.failure = .failed
            return nil
        }
        guard let html = value.stringValue else {
            outcome.failure = .tooLarge
            return nil
        }
        return Array(html.utf8)
    }

    // MARK: events

    private func event(_ method: String, _ params: JSONValue, session: String) {
        switch method {
        case "Fetch.requestPaused":
            paused(params, session: session)
        case "Page.loadEventFired":
            state.withLock { $0.loaded = true; $0.lastActivity = .now() }
        case "Inspector.targetCrashed":
            state.withLock { $0.crashed = true }
        case "Page.frameNavigated":
            // The main frame (no parent) committing a document after the page's own (however the
            // browser spells the page's URL, the first commit after the navigation is it).
            guard params["frame"]?["parentId"] == nil else { return }
            state.withLock { state in
                state.committed += 1
                if state.committed > 1 { state.navigatedAway = true }
            }
        case "Browser.gone":
            state.withLock { $0.gone = true }
        default:
            return
        }
        changed.signal()
    }

    /// A request of the page, answered off the browser's reading thread.
    private func paused(_ params: JSONValue, session: String) {
        guard let request = PausedRequest(params: params) else { return }
        let (id, address, type) = (request.id, request.url, request.resourceType)
        let plan = state.withLock { state -> Plan in
            state.lastActivity = .now()
            if type == "Document", !state.documentServed, address == url.string {
                state.documentServed = true
                state.open += 1
                return .document
            }
            if let refusal = request.refusal { return .refuse(refusal) }
            guard state.requests < configuration.maximumRequests else { return .refuse(.limit) }
            state.requests += 1
            state.open += 1
            return .fetch
        }
        let headers = request.headers.map { HTTPField($0.name, $0.value) }
        DispatchQueue.global().async { [self] in
            switch plan {
            case .document:
                fulfil(id, session: session, status: document.status, headers: document.headers, body: document.body)
            case .refuse(let reason):
                refuse(id, session: session, reason)
                return
            case .fetch:
                let target = WebURL(address)
                let answer = target.map { subresources.fetch($0, headers: headers, budget: budget) } ?? .refused(.notAllowed)
                switch answer {
                case .response(let status, let headers, let body):
                    state.withLock { $0.outcome.fetched += 1 }
                    fulfil(id, session: session, status: status, headers: headers, body: body)
                case .refused(let reason):
                    refuse(id, session: session, reason)
                }
                if let target, answer.reachedHost { state.withLock { $0.outcome.requests[target.origin, default: 0] += 1 } }
            }
            state.withLock { $0.open -= 1; $0.lastActivity = .now() }
            changed.signal()
        }
    }

    private enum Plan {
        case document
        case fetch
        case refuse(SubresourceRefusal)
    }

    private func fulfil(_ id: String, session: String, status: Int, headers: [HTTPField], body: [UInt8]) {
        let kept = headers.filter { !Self.dropped.contains($0.name.lowercased()) }.map { JSONValue.object(JSONObject([("name", .string($0.name)), ("value", .string($0.value))])) }
        _ = try? send(
            "Fetch.fulfillRequest",
            JSONObject([
                ("requestId", .string(id)), ("responseCode", JSONValue((100...599).contains(status) ? status : 502)),
                ("responseHeaders", .array(kept)), ("body", .string(Data(body).base64EncodedString())),
            ]), session: session, timeout: 5)
    }

    /// Response headers that described the bytes on the wire, not the decoded body given.
    static let dropped: Set<String> = ["content-encoding", "content-length", "transfer-encoding", "connection", "keep-alive"]

    private func refuse(_ id: String, session: String, _ reason: SubresourceRefusal) {
        if reason != .notNeeded { state.withLock { $0.outcome.refused[reason, default: 0] += 1 } }
        let error = reason == .address ? "AddressUnreachable" : reason == .failed ? "Failed" : "BlockedByClient"
        _ = try? send("Fetch.failRequest", JSONObject([("requestId", .string(id)), ("errorReason", .string(error))]), session: session, timeout: 5)
    }
}
