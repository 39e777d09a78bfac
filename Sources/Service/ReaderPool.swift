import SearchIndex
import Synchronization

/// Read connections to the index, handed out in turn. Each `SearchIndex` serialises its
/// own use, so several threads may hold the same one.
final class ReaderPool: Sendable {
    private let readers: [SearchIndex]
    private let next = Atomic<Int>(0)

    init(indexPath: String, count: Int) throws(SearchIndexError) {
        var readers: [SearchIndex] = []
        for _ in 0..<max(1, count) { readers.append(try SearchIndex(path: indexPath, mode: .existing)) }
        self.readers = readers
    }

    /// The next connection in turn.
    var reader: SearchIndex {
        readers[next.wrappingAdd(1, ordering: .relaxed).oldValue % readers.count]
    }
}
