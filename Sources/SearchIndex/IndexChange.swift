import Items
import TextUtilities

/// What one commit to the index changed, as the change log keeps it (``ChangeLog``): the
/// rows it removed or re-ranked and a filter of the terms its new rows hold. A result cache
/// asks ``affects(_:)`` of each cached answer, so that a crawl committing every second
/// leaves the answers it did not touch fresh — Elasticsearch's request cache, by contrast,
/// drops everything at each refresh.
public struct IndexChange: Sendable, Equatable {
    /// The change log's sequence number: commits are numbered in commit order.
    public var sequence: Int64
    /// Rows removed, replaced, re-dated or given new engagement; nil when there were too
    /// many to list (the change then touches every answer).
    public var rows: Set<Int64>?
    /// The terms of the rows the commit inserted (and their first bytes, for completions);
    /// nil when there were too many for the filter (the change then touches every answer
    /// that reads any term).
    public var terms: TermFilter?
    /// Whether the commit inserted rows at all: a query whose spelling corrections were
    /// looked up depends on the whole vocabulary.
    public var insertedRows: Bool

    public init(sequence: Int64, rows: Set<Int64>?, terms: TermFilter?, insertedRows: Bool) {
        self.sequence = sequence
        self.rows = rows
        self.terms = terms
        self.insertedRows = insertedRows
    }

    /// Whether an answer with these dependencies could read differently after this change.
    /// Ignored on purpose: the drift of BM25's document count, average length and document
    /// frequencies that every commit brings (a cache recomputes an answer after its lifetime).
    public func affects(_ answer: AnswerDependencies) -> Bool {
        guard let rows else { return true }
        if answer.rows.contains(where: rows.contains) || (answer.countsEveryMatch && !rows.isEmpty) { return true }
        guard insertedRows else { return false }
        if answer.readsVocabulary { return true }
        guard let terms else { return true }
        return answer.terms.contains(where: terms.contains) || answer.prefixes.contains(where: terms.contains)
    }
}

/// What a search's answer was computed from, for a result cache to test changes against
/// (``IndexChange/affects(_:)``).
public struct AnswerDependencies: Sendable, Equatable {
    /// Every candidate the answer ranked, not only those shown: a candidate whose
    /// engagement changes can move onto the page.
    public var rows: [Int64] = []
    /// ``TermFilter/hash(term:)`` of every term whose postings the search read, and of
    /// every query term (a long query drops terms by their frequencies).
    public var terms: [UInt64] = []
    /// ``TermFilter/hash(prefix:)`` of the word being typed: a new word starting with it is
    /// a new completion.
    public var prefixes: [UInt64] = []
    /// The search looked up spelling corrections, which any new word can change.
    public var readsVocabulary = false
    /// The answer counts every match (its facets and total), not only the rows it lists: a
    /// row removed or re-dated anywhere may change it.
    public var countsEveryMatch = false

    public init() {}

    /// What the dependencies take in memory.
    public var bytes: Int { 8 * (rows.count + terms.count + prefixes.count) + 32 }
}

/// A Bloom filter of the terms one commit inserted (Bloom 1970: m bits, k hash functions,
/// false positives at about (1 − e^(−kn/m))^k), with the first ``prefixLength`` bytes of
/// each term beside it for completions. A false positive only costs a cached answer its
/// freshness; there are no false negatives.
public struct TermFilter: Sendable, Equatable {
    /// The filter's bits; their count is a power of two.
    public private(set) var words: [UInt64]
    static let hashes = 6
    /// Bits per entry aimed for (1 % false positives at 6 hashes), and the least accepted
    /// before a commit is too large for a filter.
    static let bitsPerEntry = 10
    static let minimumBitsPerEntry = 5
    /// The largest filter kept for one commit (256 Kbit).
    public static let maximumBytes = 32 << 10
    /// Typed prefixes are checked by their first bytes at most this long.
    public static let prefixLength = 4

    /// An empty filter sized for `entries`, or nil when even the largest filter would hold
    /// them at fewer than ``minimumBitsPerEntry`` bits each.
    init?(entries: Int) {
        guard entries * Self.minimumBitsPerEntry <= Self.maximumBytes * 8 else { return nil }
        var bits = 512
        while bits < entries * Self.bitsPerEntry, bits < Self.maximumBytes * 8 { bits <<= 1 }
        words = [UInt64](repeating: 0, count: bits / 64)
    }

    /// A filter as stored, or nil when its length is not a power-of-two number of words.
    init?(bytes: [UInt8]) {
        let count = bytes.count / 8
        guard bytes.count % 8 == 0, count > 0, count & (count - 1) == 0, bytes.count <= Self.maximumBytes else { return nil }
        words = bytes.withUnsafeBytes { raw in
            var reader = ByteReader(raw)
            return (0..<count).map { _ in reader.u64() }
        }
    }

    var bytes: [UInt8] {
        var writer = ByteWriter(capacity: words.count * 8)
        for word in words { writer.u64(word) }
        return writer.bytes
    }

    /// The hash a term is filed under.
    public static func hash(term: some Collection<UInt8>) -> UInt64 { FNV1a.hash(term) }

    /// The hash a word being typed is checked under: its first ``prefixLength`` bytes,
    /// after a 0xFF no term holds (UTF-8 never has it), so prefixes and terms stay apart.
    public static func hash(prefix: some Collection<UInt8>) -> UInt64 { FNV1a.hash([UInt8(0xFF)] + prefix.prefix(prefixLength)) }

    /// Files a term and its first bytes (each prefix's hash extends the one before, as
    /// ``hash(prefix:)`` computes it, without building the prefixes). The first `filed`
    /// prefixes are known to be filed already (terms inserted in byte order share them with
    /// the term before).
    mutating func insert(term: UnsafeRawBufferPointer, prefixesFiled filed: Int = 0) {
        insert(Self.hash(term: term))
        var prefix = FNV1a.add(0xFF, to: FNV1a.offset)
        for length in 0..<min(Self.prefixLength, term.count) {
            prefix = FNV1a.add(term[length], to: prefix)
            if length >= filed { insert(prefix) }
        }
    }

    private mutating func insert(_ hash: UInt64) {
        let mask = UInt64(words.count * 64 - 1)
        let (first, second) = Self.split(hash)
        for index in 0..<UInt64(Self.hashes) {
            let bit = (first &+ index &* second) & mask
            words[Int(bit >> 6)] |= 1 << (bit & 63)
        }
    }

    public func contains(_ hash: UInt64) -> Bool {
        let mask = UInt64(words.count * 64 - 1)
        let (first, second) = Self.split(hash)
        for index in 0..<UInt64(Self.hashes) {
            let bit = (first &+ index &* second) & mask
            if words[Int(bit >> 6)] & (1 << (bit & 63)) == 0 { return false }
        }
        return true
    }

    /// The two hashes the k bit positions are made of by double hashing (Kirsch and
    /// Mitzenmacher 2006: position i is first + i × second).
    private static func split(_ hash: UInt64) -> (UInt64, UInt64) {
        let mixed = hash &* 0x9E37_79B9_7F4A_7C15
        return (mixed >> 32, (mixed & 0xFFFF_FFFF) | 1)
    }
}
