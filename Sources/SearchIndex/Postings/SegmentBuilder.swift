import Items
/// Collects the documents of one commit — each as its terms' weighted frequencies and its
/// length — and writes them as a new segment.
///
/// A word's stem is worked out once per builder, not once per occurrence: the first time a
/// word comes (in a language), its marked stem's term id is noted beside the word's id, and
/// every later occurrence reads it from there. A commit's text repeats its words (Zipf), so
/// Snowball and the stem term's look-up run for its distinct words only.
final class SegmentBuilder {
    let terms = TermTable()
    private(set) var rowids: [Int64] = []
    private(set) var keys: [UInt64] = []
    private(set) var lengths: [UInt16] = []
    @exclusivity(unchecked) private var postingTerms: [Int32] = []
    @exclusivity(unchecked) private var postingOrdinals: [UInt32] = []
    @exclusivity(unchecked) private var postingFrequencies: [UInt32] = []
    /// Per term id: the weighted frequency in the document being added (0: not touched yet).
    /// Unchecked, as are the touched ids: read and written for every token, by this
    /// builder's own methods only (a class's stored properties are otherwise checked for
    /// exclusive access at run time on each access).
    @exclusivity(unchecked) private var scratch = TermColumn(filling: 0)
    @exclusivity(unchecked) private var touched: [Int32] = []
    /// Per stemming language, per term id: the id of the word's marked stem, ``noStem``, or
    /// ``unknownStem`` before the word was first seen in that language.
    private var stems: [Stemmers.Language: TermColumn] = [:]
    private static let unknownStem: Int32 = -1
    private static let noStem: Int32 = -2
    /// Where a word's marked stem is built.
    private var marked: [UInt8] = []

    init() {}

    deinit {
        scratch.deallocate()
        for column in stems.values { column.deallocate() }
    }

    var isEmpty: Bool { rowids.isEmpty }
    var documents: Int { rowids.count }

    /// Analyses one document (its columns in order: title, keywords, description, body) —
    /// its words and, at the same positions, their stems in `language` (see
    /// ``SearchTokenizer/Session/analyze(_:language:_:)``, which this matches token for
    /// token) — and adds it; ``assign(rowid:key:)`` then gives it its rowid, which must be
    /// larger than every rowid given before, and its order key. Returns its length in positions, as FTS5 would count it.
    func analyze(columns: [String], tokenizer: SearchTokenizer.Session, language: String?) -> Int {
        let stemmer = tokenizer.stemmers.language(language)
        var stemColumn = stemmer.map { stems[$0] ?? TermColumn(filling: Self.unknownStem) }
        let ordinal = UInt32(rowids.count)
        var length = 0
        for (column, text) in columns.enumerated() {
            let weight = UInt32(BM25.columnWeights[column])
            var first = true
            tokenizer.tokenize(text, mode: .document) { token, colocated, _, _ in
                if !colocated || first { length += 1 }
                first = false
                let id = terms.id(token)
                count(id, weight)
                guard !colocated, let stemmer else { return }
                stemColumn!.reserve(terms.count)
                var stem = stemColumn![id]
                if stem == Self.unknownStem {
                    stem = Self.noStem
                    tokenizer.withMarkedStem(of: token, stemmer, buffer: &marked) { stem = terms.id($0) }
                    stemColumn![id] = stem
                }
                if stem >= 0 { count(stem, weight) }
            }
        }
        if let stemmer, let stemColumn { stems[stemmer] = stemColumn }
        for id in touched {
            postingTerms.append(id)
            postingOrdinals.append(ordinal)
            postingFrequencies.append(UInt32(bitPattern: scratch[id]))
            scratch[id] = 0
        }
        touched.removeAll(keepingCapacity: true)
        rowids.append(-1)
        keys.append(0)
        lengths.append(UInt16(min(length, SegmentLayout.maximumLength)))
        return length
    }

    @inline(__always)
    private func count(_ id: Int32, _ weight: UInt32) {
        scratch.reserve(terms.count)
        if scratch[id] == 0 { touched.append(id) }
        scratch[id] &+= Int32(weight)
    }

    /// Adds `terms` (``FilterTerms``) to the document analysed last, once each and outside
    /// its length: they match no query word and count in no score.
    func add(filterTerms: Set<[UInt8]>) {
        let ordinal = UInt32(rowids.count - 1)
        for term in filterTerms {
            postingTerms.append(term.withUnsafeBytes { terms.id($0) })
            postingOrdinals.append(ordinal)
            postingFrequencies.append(1)
        }
    }

    /// The rowid and order key (``ItemKey/orderKey``) of the document analysed last.
    func assign(rowid: Int64, key: UInt64) {
        rowids[rowids.count - 1] = rowid
        keys[keys.count - 1] = key
    }

    /// Every posting collected so far: the term's bytes, the document's ordinal and the
    /// weighted frequency (for inspection; a segment is written with ``write(averageLength:emit:)``).
    func postings() -> [(term: [UInt8], ordinal: UInt32, frequency: UInt32)] {
        postingTerms.indices.map { (terms.withBytes(postingTerms[$0]) { Array($0) }, postingOrdinals[$0], postingFrequencies[$0]) }
    }

    /// The term ids in byte order of their terms, sorted once when first read, which is after
    /// the last document is analysed (the change log files terms in this order, and the
    /// segment's dictionary is written in it).
    private(set) lazy var sortedTermIDs: [Int32] = terms.sortedIDs()

    /// Writes the segment; `emit` receives its chunks in order.
    func write(averageLength: Double, emit: @escaping (Int, [UInt8]) throws -> Void)
        throws -> (documentsOffset: Int, dictionaryOffset: Int, length: Int, terms: Int)
    {
        // Group the postings by term with a counting sort; within a term they stay in
        // ordinal order.
        var counts = [Int](repeating: 0, count: terms.count + 1)
        for term in postingTerms { counts[Int(term) + 1] += 1 }
        for i in 1..<counts.count { counts[i] += counts[i - 1] }
        var next = counts
        var ordinals = [UInt32](repeating: 0, count: postingTerms.count)
        var frequencies = [UInt32](repeating: 0, count: postingTerms.count)
        for (i, term) in postingTerms.enumerated() {
            let at = next[Int(term)]
            ordinals[at] = postingOrdinals[i]
            frequencies[at] = postingFrequencies[i]
            next[Int(term)] += 1
        }
        let writer = SegmentWriter(rowids: rowids, keys: keys, lengths: lengths, averageLength: averageLength, emit: emit)
        try ordinals.withUnsafeBufferPointer { ordinals in
            try frequencies.withUnsafeBufferPointer { frequencies in
                for id in sortedTermIDs {
                    let range = counts[Int(id)]..<counts[Int(id) + 1]
                    try terms.withBytes(id) { term in
                        try writer.add(term: term, ordinals: UnsafeBufferPointer(rebasing: ordinals[range]),
                                       frequencies: UnsafeBufferPointer(rebasing: frequencies[range]))
                    }
                }
            }
        }
        return try writer.finish()
    }
}

/// A value per term id, in a buffer grown with the term table and freed by its owner: read
/// and written for every token, so without array bounds and uniqueness checks.
struct TermColumn {
    private var base: UnsafeMutablePointer<Int32>
    private var capacity: Int
    private let filling: Int32

    init(filling: Int32) {
        self.filling = filling
        capacity = 1024
        base = .allocate(capacity: capacity)
        base.initialize(repeating: filling, count: capacity)
    }

    /// Makes room for ids below `count`, new ones holding the filling value.
    @inline(__always)
    mutating func reserve(_ count: Int) {
        guard count > capacity else { return }
        var size = capacity * 2
        while size < count { size *= 2 }
        let grown = UnsafeMutablePointer<Int32>.allocate(capacity: size)
        grown.moveInitialize(from: base, count: capacity)
        (grown + capacity).initialize(repeating: filling, count: size - capacity)
        base.deallocate()
        base = grown
        capacity = size
    }

    @inline(__always)
    subscript(id: Int32) -> Int32 {
        get { base[Int(id)] }
        nonmutating set { base[Int(id)] = newValue }
    }

    func deallocate() { base.deallocate() }
}
