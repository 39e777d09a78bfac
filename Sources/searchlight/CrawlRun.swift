import Crawl
import EmbeddedStore
import Foundation
import Glibc
import JSON
import PostgresStore
import Render
import StoreSeams
import Synchronization
import TextUtilities

/// One crawl run as the CLI runs it: the data-folder lock, signal handling, progress on
/// a terminal, and the report written to `runs/`. Shared by `crawl` and `demo`.
struct CrawlRun {
    let configuration: CrawlConfiguration
    var store = StoreOption.none
    var leaseSeconds: Double = 60

    /// Runs, or returns nil (after saying why) when another run holds the data folder.
    func run(progress display: ProgressDisplay.Mode) throws -> RunReport? {
        let runID = Self.newRunID()
        let lock: CrawlLock
        switch try CrawlLock.acquire(path: configuration.folder.lockPath, runID: runID) {
        case .success(let acquired):
            lock = acquired
        case .failure(let busy):
            let who = busy.holder.map { "run \($0.runID) (pid \($0.pid)) since \(ISO8601.string(fromSeconds: $0.since.timeIntervalSince1970))" } ?? "another run"
            Console.writeLine("Not crawling: \(who) is crawling \(configuration.dataDirectory).")
            return nil
        }
        if let previous = lock.tookOverFrom {
            Console.error("note: took over the lock left by run \(previous.runID) (pid \(previous.pid)), which is no longer running")
        }
        defer { withExtendedLifetime(lock) {} }
        // Every run that may render says when its browser cannot keep Chromium's sandbox.
        let renders = configuration.render.mode != .never || configuration.render.hosts.contains { $0.mode != .never }
        if renders, let warning = BrowserSandbox.current.warning { Console.error(warning) }
        StopSignal.install()
        let shared = try store.open()
        let crawlStore: CrawlStore = try shared.map { PostgresCrawlStore($0, leaseSeconds: leaseSeconds) }
            ?? LocalCrawlStore(dataDirectory: configuration.dataDirectory)
        let crawler = try CrawlEngine.with(store: crawlStore, configuration: configuration, runID: runID)
        // Called on this thread only, once a second: the display is this run's alone.
        var shown = ProgressDisplay(mode: display)
        var report = try crawler.run(progress: shown.isOn ? { shown.show($0) } : nil, shouldStop: { StopSignal.requested })
        if report.stoppedBy == "signal" { report.stopSignal = StopSignal.name }
        shown.clear()
        try save(report)
        if let shared, let worker = (crawlStore as? PostgresCrawlStore)?.worker { try shared.save(report: report.json, id: report.id, started: report.started, worker: worker) }
        return report
    }

    private func save(_ report: RunReport) throws {
        let folder = configuration.folder.runsDirectory
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = (folder as NSString).appendingPathComponent("\(report.id).json")
        try Data(JSONWriter.bytes(report.json, style: .pretty) + [0x0A]).write(to: URL(fileURLWithPath: path))
    }

    static func newRunID() -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.string(from: Date()) + "-" + String(format: "%08x", UInt32.random(in: 0...UInt32.max))
    }
}
