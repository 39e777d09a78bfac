import Dispatch
import Foundation
import StoreSeams
import Synchronization

/// Runs a store's ``CrawlItemWriter`` on a thread of its own, one batch after another in the
/// order given, so that the coordinator goes on fetching and dispatching while the index
/// writes. Finished writes wait in order until the coordinator takes them
/// (``takeFinished()``) and writes what records their items.
///
/// Bounded by its user: the engine keeps at most ``CrawlEngine/itemBatchesInFlight`` batches
/// submitted and not yet taken, so the items held here are at most that many batches'.
final class ItemWriteQueue: @unchecked Sendable {
    // @unchecked: `writer` is not Sendable; after `init` it is touched only by blocks on the
    // serial `queue`, one at a time. The finished results are behind a Mutex.
    private let writer: any CrawlItemWriter
    private let queue = DispatchQueue(label: "searchlight.crawl.item-writes")
    private let finished = Mutex<[Result<Int, any Error>]>([])
    /// Signalled once per finished write.
    private let finishedSignal = DispatchSemaphore(value: 0)
    private let wake: @Sendable () -> Void

    /// `wake` is called on the writer's thread after each write, to rouse the coordinator.
    init(writer: any CrawlItemWriter, wake: @escaping @Sendable () -> Void) {
        self.writer = writer
        self.wake = wake
    }

    func submit(_ items: CrawlBatch, now: Date) {
        queue.async { [self] in
            let result = Result { try writer.write(items, now: now) }
            finished.withLock { $0.append(result) }
            finishedSignal.signal()
            wake()
        }
    }

    /// The writes finished since the last call, in the order they were submitted: how many
    /// items each deleted, or why it failed.
    func takeFinished() -> [Result<Int, any Error>] {
        finished.withLock { results in
            defer { results.removeAll(keepingCapacity: true) }
            return results
        }
    }

    /// Blocks until a write finishes, or returns at once when one finished since the last
    /// wait (whether or not it was taken).
    func waitForAWrite() {
        finishedSignal.wait()
    }
}
