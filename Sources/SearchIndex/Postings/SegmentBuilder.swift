/// Collects the documents of one commit — each as its terms' weighted frequencies and its
/// length — and writes them as a new segment.
struct SegmentBuilder {
    private(set) var terms = TermTable()
    private(set) var rowids: [Int64] = []
    private(set) var lengths: [UInt16] = []
    private var postingTerms: [Int32] = []
    private var postingOrdinals: [UInt32] = []
    private var postingFrequencies: [UInt32] = []
    /// Per term id: the frequency in the document being added, and whether it was touched.
    private var scratch: [UInt32] = []
    private var touched: [Int32] = []

    var isEmpty: Bool { rowids.isEmpty }
    var documents: Int { rowids.count }

    /// Analyses one document (its columns in order: title, keywords, description, body), its
    /// words and their stems in `language` (``SearchTokenizer/Session/analyze(_:language:_:)``),
    /// and adds it; ``assign(rowid:)`` then gives it its rowid, which must be larger than every
    /// rowid given before. Returns its length in positions, as FTS5 would count it.
    mutating func analyze(columns: [String], tokenizer: SearchTokenizer.Session, language: String?) -> Int {
        let stemmer = tokenizer.stemmers.language(language)
        let ordinal = UInt32(rowids.count)
        var length = 0
        for (column, text) in columns.enumerated() {
            let weight = UInt32(BM25.columnWeights[column])
            var first = true
            tokenizer.analyze(text, language: stemmer) { token, colocated, _, _ in
                if !colocated || first { length += 1 }
                first = false
                let id = terms.id(token)
                if Int(id) >= scratch.count { scratch.append(contentsOf: repeatElement(0, count: Int(id) - scratch.count + 1)) }
                if scratch[Int(id)] == 0 { touched.append(id) }
                scratch[Int(id)] &+= weight
            }
        }
        for id in touched {
            postingTerms.append(id)
            postingOrdinals.append(ordinal)
            postingFrequencies.append(scratch[Int(id)])
            scratch[Int(id)] = 0
        }
        touched.removeAll(keepingCapacity: true)
        rowids.append(-1)
        lengths.append(UInt16(min(length, SegmentLayout.maximumLength)))
        return length
    }

    /// The rowid of the document analysed last.
    mutating func assign(rowid: Int64) {
        rowids[rowids.count - 1] = rowid
    }

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
        let writer = SegmentWriter(rowids: rowids, lengths: lengths, averageLength: averageLength, emit: emit)
        try ordinals.withUnsafeBufferPointer { ordinals in
            try frequencies.withUnsafeBufferPointer { frequencies in
                for id in terms.sortedIDs() {
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
