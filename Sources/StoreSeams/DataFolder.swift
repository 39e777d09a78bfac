import Foundation

/// The files of a data folder, named in this one place: every command and store that
/// opens one of them asks here.
public struct DataFolder: Sendable, Hashable {
    public let path: String

    public init(_ path: String) {
        self.path = path
    }

    private func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    /// The search index (``SearchIndex``).
    public var indexPath: String { file("index.sqlite") }
    /// The crawl's URLs and hosts (``Frontier``).
    public var frontierPath: String { file("frontier.sqlite") }
    /// What `ingest` remembers of each source between runs.
    public var ingestPath: String { file("ingest.sqlite") }
    /// Keys and activity reports: the service's own file.
    public var servicePath: String { file("service.sqlite") }
    /// Held by the run crawling the folder (``CrawlLock``).
    public var lockPath: String { file("crawl.lock") }
    /// One JSON report per run.
    public var runsDirectory: String { file("runs") }
    /// The crawl's WARC files.
    public var warcDirectory: String { file("warc") }
    /// The named pipe a continuous crawl listens on, and that `serve` writes a byte to when a
    /// notice made URLs due (``FrontierWakeUp``).
    public var wakePath: String { file("crawl.wake") }
}

/// How a continuous crawl (`crawl --continuous`) hears that work became due in its store
/// from another process — a notice `serve` took, a `--refetch` — instead of waiting for its
/// next due time. The data folder's is a named pipe; a store without one is looked at on
/// a short interval.
public protocol FrontierWakeUp: AnyObject, Sendable {
    /// Starts listening; `wake` is called (on another thread) each time work may be due.
    func start(_ wake: @escaping @Sendable () -> Void) throws
    func stop()
}

