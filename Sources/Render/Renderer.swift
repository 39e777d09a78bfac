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

/// Renders pages in one shared ``Browser``, at most ``Configuration/concurrency`` at once;
/// a page whose render is cut by the browser dying is rendered once more in a new one, and
/// a browser past its memory bound is started again when no render uses it.
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
            let idle = active.withLock { active -> Bool in
                active -= 1
                return active == 0
            }
            if idle, browser.isOverweight { browser.kill() }
            slots.signal()
        }
        for attempt in 0..<2 {
            var generation: Int?
            do {
                generation = try browser.start()
                return try PageRender(browser: browser, generation: generation!, subresources: subresources, configuration: configuration, url: url,
                                      document: document).run()
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

    private static func failed(_ failure: RenderFailure) -> RenderOutcome {
        var outcome = RenderOutcome()
        outcome.failure = failure
        return outcome
    }
}
