import Dispatch
import Items
import SearchIndex
import ServiceAPI
import Synchronization

/// Read connections to the index, each lent to one search at a time. Each `SearchIndex`
/// serialises its own use, so handing them out in turn let two searches queue on one
/// connection while another sat idle (at 16 server threads over 2 cores, uncached searches
/// ran at a fifth of their in-process rate); lending a free one keeps every connection busy
/// and no search waits behind another.
final class ReaderPool: Sendable {
    private let readers: [SearchIndex]
    private let free: Mutex<[Int]>
    private let available: DispatchSemaphore

    init(indexPath: String, count: Int) throws(SearchIndexError) {
        var readers: [SearchIndex] = []
        for _ in 0..<max(1, count) { readers.append(try SearchIndex(path: indexPath, mode: .existing)) }
        self.readers = readers
        free = Mutex(Array(readers.indices))
        available = DispatchSemaphore(value: readers.count)
    }

    /// Runs `body` with a connection no other search is using, waiting for one if all are.
    func withReader<T>(_ body: (SearchIndex) throws -> T) rethrows -> T {
        available.wait()
        let index = free.withLock { $0.removeLast() }
        defer {
            free.withLock { $0.append(index) }
            available.signal()
        }
        return try body(readers[index])
    }
}
