import BoundedCache

/// What a process keeps of one index file between searches — its segments' readers and
/// gone rows, the rows each filter passes, its places, each segment's facet values (and
/// their names), its live rows, a router's first answers and its bodies' dictionaries —
/// owned together, as Lucene's reader owns what it caches of its index, so that they go
/// together. Every ``SearchIndex`` open on the file shares it: it is found by the file's
/// identity (its path and the id the file was made with, so a file made again at the same
/// path is another reader). At most
/// ``files`` readers are kept, the least recently used dropped with all it holds. Postings
/// and a frequent word's bits are kept apart, under process-wide byte budgets
/// (``SegmentCache/postingsBudget``, ``SegmentSearcher/termBits``), keyed by the identity.
///
/// Within a reader, what merges and deletions made dead goes: a merged-away segment's
/// reader, values and bits when a search sees the new segment list; deleted rows' places
/// when the change log shows enough of them.
final class IndexReader: Sendable {
    let identity: String
    let segments: SegmentCache
    let places = PlaceGrid()
    let filters: FilterCache
    let segmentFacets = SegmentFacets()
    let live = LiveRows()
    let firstAnswers = FirstAnswerCache()
    let bodyDictionaries = BodyDictionaries()

    /// Index files whose readers are kept.
    static let files = 8
    private static let open = BoundedCache<String, IndexReader>(capacityEntries: files)

    private init(identity: String) {
        self.identity = identity
        segments = SegmentCache(identity: identity)
        filters = FilterCache(places: places)
    }

    /// The reader of the file of `identity`, made on first use.
    static func reader(for identity: String) -> IndexReader {
        open.value(identity, orMaking: { IndexReader(identity: identity) })
    }
}
