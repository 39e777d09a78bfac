import Dispatch
import HTTPTypes
import Synchronization
import WebURL

/// The page's response as the crawl fetched it: the browser is given these bytes for the
/// page itself rather than fetching it again.
public struct RenderDocument: Sendable {
    public var status: Int
    public var headers: [HTTPField]
    public var body: [UInt8]

    public init(status: Int, headers: [HTTPField], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Renders pages in one shared ``Browser``, at most ``Configuration/concurrency`` at once,
/// each host's pages in a tab of the host's own context, kept between its pages while it
/// renders well (``PageRender/Tab``); a page whose render is cut by the browser dying is
/// rendered once more in a new one, and a browser past its memory bound is started again
/// when no render uses it.
public final class Renderer: Sendable {
    public struct Configuration: Sendable {
        /// Seconds a render may take in all (`--render-timeout`).
        public var timeout = 10.0
        /// Seconds without an open request, after the load event, that end a render.
        public var settle = 0.5
        /// Renders at once (`--render-concurrency`).
        public var concurrency = 2
        /// Requests a page may make that are fetched.
        public var maximumRequests = 100
        /// Bytes those requests may bring in all.
        public var maximumBytes = 32 << 20
        /// The rendered document's length in characters (UTF-16 code units, as the browser
        /// counts); a larger one is not read (``RenderFailure/tooLarge``).
        public var maximumDocumentCharacters = 4 << 20

        public init() {}
    }

    public let configuration: Configuration
    public let browser: Browser
    private let subresources: any SubresourceFetching
    private let slots: DispatchSemaphore
    private let active = Mutex(0)
    /// Tabs not rendering now, by origin, oldest first; at most ``Configuration/concurrency``.
    private let idle = Mutex<[(origin: String, tab: PageRender.Tab)]>([])

    public init(configuration: Configuration = Configuration(), browser: Browser = Browser(), subresources: any SubresourceFetching) {
        self.configuration = configuration
        self.browser = browser
        self.subresources = subresources
        slots = DispatchSemaphore(value: max(1, configuration.concurrency))
    }

    /// Renders `url` from `document`; blocks until it is rendered or has failed.
    public func render(_ url: WebURL, document: RenderDocument) -> RenderOutcome {
        slots.wait()
        active.withLock { $0 += 1 }
        defer {
            let quiet = active.withLock { active -> Bool in
                active -= 1
                return active == 0
            }
            if quiet, browser.isOverweight { browser.kill() }
            slots.signal()
        }
        for attempt in 0..<2 {
            var generation: Int?
            do throws(Browser.Failure) {
                let running = try browser.start()
                generation = running
                let tab: PageRender.Tab
                if let kept = take(url.origin, generation: running) { tab = kept } else { tab = try PageRender.open(browser, generation: running) }
                let outcome: RenderOutcome
                do throws(Browser.Failure) {
                    outcome = try PageRender(browser: browser, generation: running, subresources: subresources, configuration: configuration,
                                             url: url, document: document).run(in: tab)
                } catch {
                    PageRender.close(tab, browser: browser)
                    throw error
                }
                // A tab whose page looped, crashed or grew too large is not used again.
                if outcome.failure == nil { keep(tab, origin: url.origin) } else { PageRender.close(tab, browser: browser) }
                return outcome
            } catch .unavailable {
                return Self.failed(.unavailable)
            } catch .gone where attempt == 0 {
                continue
            } catch .timeout {
                // A browser that does not answer a command is not trusted with the next page.
                if let generation { browser.kill(generation: generation) }
                return Self.failed(.timeout)
            } catch {
                return Self.failed(.failed)
            }
        }
        return Self.failed(.failed)
    }

    /// The idle tab of `origin` in the running browser, taken out of the idle list.
    private func take(_ origin: String, generation: Int) -> PageRender.Tab? {
        idle.withLock { idle in
            idle.removeAll { $0.tab.generation != generation }
            guard let index = idle.firstIndex(where: { $0.origin == origin }) else { return nil }
            return idle.remove(at: index).tab
        }
    }

    /// Puts a tab back for its host's next page; the oldest idle tab is closed past the bound.
    private func keep(_ tab: PageRender.Tab, origin: String) {
        let evicted = idle.withLock { idle -> PageRender.Tab? in
            idle.append((origin, tab))
            return idle.count > max(1, configuration.concurrency) ? idle.removeFirst().tab : nil
        }
        if let evicted { PageRender.close(evicted, browser: browser) }
    }

    private static func failed(_ failure: RenderFailure) -> RenderOutcome {
        var outcome = RenderOutcome()
        outcome.failure = failure
        return outcome
    }
}
