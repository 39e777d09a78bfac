import SQLite

/// A query the segments answer: clauses of units, where a unit is one token (a term) or
/// several in a row (a phrase), a clause matches when any of its units does, and the
/// query when every clause does (`requireAll`) or any.
struct PostingsQuery {
    var clauses: [[[[UInt8]]]]
    var requireAll: Bool
}

/// Searches the segments one read transaction sees, with BM25 as FTS5 computes it
/// (``BM25``), keeping only live, unexpired documents.
struct SegmentSearcher {
    let connection: SQLiteConnection
    let tokenizer: SearchTokenizer.Session
    let file: String
    let segments: [SegmentReader]
    /// Live documents and their mean length, the N and avgdl of BM25.
    let documents: Int
    let averageLength: Double

    init(connection: SQLiteConnection, tokenizer: SearchTokenizer.Session, file: String) throws {
        self.connection = connection
        self.tokenizer = tokenizer
        self.file = file
        let infos = try SegmentStore.list(connection)
        SegmentCache.shared.retain(file: file, current: Set(infos.map(\.id)))
        segments = try infos.map { try SegmentCache.shared.reader(file: file, info: $0, connection: connection) }
        let stats = try IndexStatistics.read(connection)
        documents = stats.documents
        averageLength = stats.documents > 0 ? max(1, Double(stats.tokens) / Double(stats.documents)) : 1
    }

    /// Documents holding `term`, over every segment (documents deleted since their segment
    /// was merged still count, until the next merge).
    func frequency(_ term: [UInt8]) -> Int {
        term.withUnsafeBytes { bytes in segments.reduce(0) { $0 + ($1.term(bytes)?.documents ?? 0) } }
    }

    /// Terms from `lower` up to `upper` with their document counts, merged over segments,
    /// in byte order.
    func vocabulary(from lower: [UInt8], below upper: [UInt8]?) -> [(term: [UInt8], documents: Int)] {
        var merged: [[UInt8]: Int] = [:]
        for segment in segments {
            segment.terms(from: lower, below: upper) { term, documents in merged[Array(term), default: 0] += documents }
        }
        return merged.map { ($0.key, $0.value) }.sorted { $0.term.lexicographicallyPrecedes($1.term) }
    }

    /// The `limit` most frequent terms that start with `prefix` (itself excluded).
    func completions(of prefix: [UInt8], limit: Int) -> [[UInt8]] {
        var upper = prefix
        while let last = upper.last, last == 0xFF { upper.removeLast() }
        let end: [UInt8]? = upper.isEmpty ? nil : upper.dropLast() + [upper[upper.count - 1] + 1]
        return vocabulary(from: prefix, below: end).filter { $0.term != prefix }
            .sorted { $0.documents != $1.documents ? $0.documents > $1.documents : $0.term.lexicographicallyPrecedes($1.term) }
            .prefix(limit).map(\.term)
    }

    /// The best `k` live documents by BM25, best first.
    ///
    /// A phrase's postings say only that its tokens are all there, so a query with
    /// phrases runs in two steps: the postings give the best documents by an upper bound
    /// (the phrase counted as often as its rarest token), and their text, read in that
    /// order, gives exact scores, until no document left could beat the k-th exact one;
    /// when the first step's list runs out before that, it is made four times deeper.
    func top(_ query: PostingsQuery, k: Int, now: Double, exhaustive: Bool = false) throws -> [TopK.Entry] {
        var idfs: [[Double]] = []
        for clause in query.clauses {
            idfs.append(clause.map { unit in
                let containing = unit.map(frequency).min() ?? 0
                return BM25.idf(documents: documents, containing: containing)
            })
        }
        guard query.clauses.contains(where: { $0.contains { $0.count > 1 } }) else {
            return try collect(query, idfs: idfs, k: k, now: now, exhaustive: exhaustive)
        }
        var depth = k * 4
        while true {
            let estimates = try collect(query, idfs: idfs, k: depth, now: now, exhaustive: exhaustive)
            var verified = TopK(capacity: k)
            var proven = false
            for entry in estimates {
                if verified.threshold > -.infinity, entry.score <= verified.threshold {
                    proven = true
                    break
                }
                if let exact = try exactScore(entry.rowid, query, idfs: idfs) { verified.insert(exact, rowid: entry.rowid) }
            }
            if proven || estimates.count < depth || depth >= 256 * k { return verified.sorted }
            depth *= 4
        }
    }

    /// A document's score read from its text: every unit's weighted frequency counted
    /// where its tokens stand in a row; nil when the query does not match it.
    private func exactScore(_ rowid: Int64, _ query: PostingsQuery, idfs: [[Double]]) throws -> Double? {
        let columns = try text(of: rowid)
        guard !columns.isEmpty else { return nil }
        let units = query.clauses.flatMap { $0 }
        let frequencies = PhraseMatcher.frequencies(of: units, in: columns, tokenizer: tokenizer)
        let length = Double(PhraseMatcher.length(of: columns, tokenizer: tokenizer))
        var score = 0.0
        var matched = 0
        var unit = 0
        for (clause, clauseIDFs) in zip(query.clauses, idfs) {
            var any = false
            for idf in clauseIDFs.prefix(clause.count) {
                let frequency = frequencies[unit]
                unit += 1
                guard frequency > 0 else { continue }
                any = true
                score += idf * BM25.saturation(frequency: frequency, length: length, averageLength: averageLength)
            }
            if any { matched += 1 }
        }
        if query.requireAll ? matched < query.clauses.count : matched == 0 { return nil }
        return score
    }

    /// The best `k` live documents by the postings' scores (for phrases, their bounds).
    private func collect(_ query: PostingsQuery, idfs: [[Double]], k: Int, now: Double, exhaustive: Bool) throws -> [TopK.Entry] {
        var heap = TopK(capacity: k)
        let alive = try connection.statement("SELECT expires FROM items WHERE rowid = ?")
        var failure: Error?
        for segment in segments {
            try segment.lengths.withUnsafeBufferPointer { lengths in
                let context = ScoringContext(lengths: lengths, averageLength: averageLength,
                                             boundFactor: BM25.boundFactor(builtWith: segment.info.averageLength, scoringWith: averageLength))
                if query.requireAll, query.clauses.allSatisfy({ $0.count == 1 && $0[0].count == 1 }) {
                    try searchTerms(query, idfs: idfs, segment: segment, context: context, heap: &heap, exhaustive: exhaustive,
                                    now: now, alive: alive)
                    return
                }
                var clauses: [MatchNode] = []
                for (index, clause) in query.clauses.enumerated() {
                    var nodes: [MatchNode] = []
                    for (unitIndex, unit) in clause.enumerated() {
                        if let node = try node(for: unit, idf: idfs[index][unitIndex], segment: segment, context: context) { nodes.append(node) }
                    }
                    if nodes.isEmpty {
                        if query.requireAll { return }
                        continue
                    }
                    clauses.append(nodes.count == 1 ? nodes[0] : AnyNode(nodes))
                }
                guard !clauses.isEmpty else { return }
                let admit: BlockMaxSearch.Admission = { ordinal, estimate in
                    guard failure == nil else { return nil }
                    do {
                        alive.reset()
                        alive.bind(1, segment.rowids[Int(ordinal)])
                        guard try alive.step() else { return nil }
                        if let expires = alive.optionalDouble(0), expires <= now { return nil }
                        return estimate
                    } catch {
                        failure = error
                        return nil
                    }
                }
                if query.requireAll {
                    BlockMaxSearch.conjunctive(clauses, rowids: segment.rowids, heap: &heap, exhaustive: exhaustive, admit: admit)
                } else {
                    BlockMaxSearch.disjunctive(clauses, rowids: segment.rowids, heap: &heap, exhaustive: exhaustive, admit: admit)
                }
            }
            if let failure { throw failure }
        }
        return heap.sorted
    }

    /// Every clause one term: the loop of ``TermConjunction``.
    private func searchTerms(_ query: PostingsQuery, idfs: [[Double]], segment: SegmentReader, context: ScoringContext, heap: inout TopK,
                             exhaustive: Bool, now: Double, alive: SQLiteStatement) throws
    {
        var postings: [(TermPostings, Double)] = []
        for (index, clause) in query.clauses.enumerated() {
            guard let term = clause[0][0].withUnsafeBytes({ segment.term($0) }) else { return }
            postings.append((try SegmentCache.shared.postings(file: file, segment: segment, term: term, connection: connection), idfs[index][0]))
        }
        postings.sort { $0.0.documents < $1.0.documents }
        var clauses = postings.map { TermConjunction.Clause(cursor: PostingCursor($0.0), idf: $0.1) }
        defer { for clause in clauses { clause.cursor.release() } }
        var failure: Error?
        withExtendedLifetime(postings) {
            clauses.withUnsafeMutableBufferPointer { clauses in
                TermConjunction.search(clauses, lengths: context.lengths, averageLength: context.averageLength, boundFactor: context.boundFactor,
                                       rowids: segment.rowids, heap: &heap, exhaustive: exhaustive) { ordinal, estimate in
                    do {
                        alive.reset()
                        alive.bind(1, segment.rowids[Int(ordinal)])
                        guard try alive.step() else { return nil }
                        if let expires = alive.optionalDouble(0), expires <= now { return nil }
                        return estimate
                    } catch {
                        failure = error
                        return nil
                    }
                }
            }
        }
        if let failure { throw failure }
    }

    private func node(for unit: [[UInt8]], idf: Double, segment: SegmentReader, context: ScoringContext) throws -> MatchNode? {
        var tokens: [TermNode] = []
        for token in unit {
            guard let term = token.withUnsafeBytes({ segment.term($0) }) else { return nil }
            let postings = try SegmentCache.shared.postings(file: file, segment: segment, term: term, connection: connection)
            tokens.append(TermNode(postings, idf: idf, context: context))
        }
        guard !tokens.isEmpty else { return nil }
        return tokens.count == 1 ? tokens[0] : PhraseNode(tokens: tokens, idf: idf, context: context)
    }

    /// A document's columns in order: title, keywords, description, body.
    func text(of rowid: Int64) throws -> [String] {
        let item = try connection.statement("SELECT title, keywords, coalesce(description, '') FROM items WHERE rowid = ?")
        item.bind(1, rowid)
        guard try item.step() else { return [] }
        let body = try connection.statement("SELECT body FROM item_bodies WHERE rowid = ?")
        body.bind(1, rowid)
        let text = try body.step() ? body.string(0) ?? "" : ""
        return [item.string(0) ?? "", item.string(1) ?? "", item.string(2) ?? "", text]
    }
}

/// The counts BM25 needs, kept in `meta` and updated by every write in its transaction:
/// live documents and their total length in tokens.
struct IndexStatistics {
    var documents: Int
    var tokens: Int

    static func read(_ connection: SQLiteConnection) throws -> IndexStatistics {
        let statement = try connection.statement("SELECT key, value FROM meta WHERE key IN ('documents', 'tokens')")
        var stats = IndexStatistics(documents: 0, tokens: 0)
        while try statement.step() {
            let value = Int(statement.string(1) ?? "") ?? 0
            if statement.string(0) == "documents" { stats.documents = value } else { stats.tokens = value }
        }
        return stats
    }

    /// Adds (or with negative values removes) documents and tokens.
    static func add(documents: Int, tokens: Int, _ connection: SQLiteConnection) throws {
        guard documents != 0 || tokens != 0 else { return }
        try connection.statement("""
            INSERT INTO meta(key, value) VALUES('documents', ?1), ('tokens', ?2)
            ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + CAST(excluded.value AS INTEGER)
            """).run([.integer(Int64(documents)), .integer(Int64(tokens))])
    }
}
