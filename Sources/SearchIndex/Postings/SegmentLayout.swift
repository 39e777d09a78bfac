import Items
/// The byte layout of one segment: an immutable inverted index over a set of documents,
/// stored in a file of its own (``SegmentFile``) and described by its `segments` row.
///
///     [postings][documents][dictionary]
///
/// - postings: for each term, its block index — per block of up to ``blockSize`` postings,
///   the last document ordinal (u32), the largest BM25 saturation any posting of the block
///   can reach (f32, rounded up; see ``BM25``) and the end of the block's data (u32, from the
///   start of the data) — then the data: the blocks, bit-packed (``PostingBlock``).
/// - documents, from a multiple of eight bytes: the rowid (u64) of each document in ordinal order (rowids ascend), then
///   each document's order key (u64, ``ItemKey/orderKey``: ties in score are ordered by
///   it), then each document's length in tokens (u16).
/// - dictionary: the number of terms (u32), the offset of each term's entry (u32, from
///   the dictionary's start) in byte order of the terms, then the entries: term length
///   (u16), term bytes, documents (u32), blocks (u32), largest block bound (f32) and the
///   offset of the term's postings (u64, from the segment's start).
///
/// Ordinals are 0..<documents, in rowid order; a rowid is in exactly one segment (the index
/// never reuses rowids), so a posting is live exactly while the `items` row exists.
enum SegmentLayout {
    static let blockSize = 128
    static let blockIndexEntryBytes = 12
    /// Longest document length kept; longer documents score as this long.
    static let maximumLength = Int(UInt16.max)
    static let documentBytes = 18
    /// The layout's version, kept in `meta` as `segment_format`: an index whose segments
    /// were written in an older one has them rebuilt from its items when it is opened
    /// (``IndexMigration/rebuildOutdatedSegments(_:tokenizer:)``). 2 added the order keys;
    /// 3 packs postings in blocks of bits (before, two varints a posting); 4 has block bounds
    /// computed with BM25's b of 0.65 (0.75 before); 5 keeps each segment in a file of its
    /// own, mapped, with its documents at a multiple of eight (before, in `segment_chunks`
    /// rows of the index file).
    static let version = 5
}

/// What a `segments` row says about its segment.
struct SegmentInfo: Sendable, Hashable {
    var id: Int64
    var level: Int
    var documents: Int
    var terms: Int
    /// Where the documents and the dictionary start, and the whole length.
    var documentsOffset: Int
    var dictionaryOffset: Int
    var length: Int
    /// The average document length of the index when the bounds were computed.
    var averageLength: Double
    var minimumRowid: Int64
    var maximumRowid: Int64
    /// Documents of the segment whose items were removed since it was written (their
    /// postings stay until a merge).
    var deleted = 0

    /// Documents still there.
    var live: Int { max(0, documents - deleted) }
}
