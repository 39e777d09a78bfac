import Dispatch
import Fetch
import Synchronization
import TextUtilities
import WebURL

/// What the fetch and extraction threads hand back to the crawl's coordinator.
enum CrawlEvent: Sendable {
    /// A page, analysed, with its response (for the archive).
    case page(PageAnalyzer.Result, FetchResponse)
    /// One of a host's own files.
    case file(origin: String, HostMachine.File, FetchResponse)
}

/// The coordinator's mailbox.
final class Inbox: Sendable {
    private let events = Mutex<[CrawlEvent]>([])
    private let signal = DispatchSemaphore(value: 0)

    func post(_ event: CrawlEvent) {
        events.withLock { $0.append(event) }
        signal.signal()
    }

    func drain() -> [CrawlEvent] {
        events.withLock { events in
            defer { events.removeAll(keepingCapacity: true) }
            return events
        }
    }

    /// Rouses a waiting coordinator without an event (an item write finished).
    func wake() {
        signal.signal()
    }

    /// Waits until something is posted or `timeout` seconds pass.
    func wait(timeout: Double) {
        _ = signal.wait(timeout: .now() + timeout)
    }
}

/// Set by a continuous run's wake-up thread, taken by its coordinator.
final class WakeFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    func set() { flag.store(true, ordering: .releasing) }

    /// Whether it was set since the last take.
    func take() -> Bool { flag.exchange(false, ordering: .acquiringAndReleasing) }
}

/// Hashes of URLs already queued in this run, so that most duplicate links never reach
/// the store. A fixed table of 64-bit FNV-1a hashes (8 MB) keeps memory flat however many
/// URLs a run sees; a slot taken by another URL is overwritten, so a URL seen long ago may
/// be tried again, and the frontier's unique key drops it then.
struct SeenFilter {
    private var slots = [UInt64](repeating: 0, count: 1 << 20)

    /// True when `url` was not seen yet (and is now).
    mutating func insert(_ url: String) -> Bool {
        var hash = FNV1a.hash(url.utf8)
        if hash == 0 { hash = 1 }
        let slot = Int(hash & UInt64(slots.count - 1))
        if slots[slot] == hash { return false }
        slots[slot] = hash
        return true
    }
}
