import Glibc
import Items
import SQLite
import SearchModel

/// Searches the segments one read transaction sees, with BM25 as FTS5 computes it
/// (``BM25``), keeping only live, unexpired documents; what the plan looks up of their terms
/// is its ``TermDictionary``.
struct SegmentSearcher {
    let connection: SQLiteConnection
    let tokenizer: SearchTokenizer.Session
    /// What the process keeps of this file (its segments' readers, its postings' cache key).
    let reader: IndexReader
    let segments: [SegmentReader]
    /// Each segment's removed documents counted in this transaction (a reader kept from an
    /// earlier search has the count it was opened with).
    let deletedCounts: [Int]
    /// The segments' terms and the statistics BM25 reads: what the query plan looks up.
    var dictionary: TermDictionary

    init(connection: SQLiteConnection, tokenizer: SearchTokenizer.Session, reader: IndexReader) throws {
        self.connection = connection
        self.tokenizer = tokenizer
        self.reader = reader
        let infos = try SegmentStore.list(connection)
        reader.segments.retain(current: Set(infos.map(\.id)))
        segments = try infos.map { try reader.segments.reader(info: $0, connection: connection) }
        deletedCounts = infos.map(\.deleted)
        dictionary = TermDictionary(segments: segments, statistics: try IndexStatistics.read(connection))
    }

    /// The same segments, ranked with the whole index's statistics.
    func using(_ statistics: CorpusStatistics) -> SegmentSearcher {
        var copy = self
        copy.dictionary = dictionary.using(statistics)
        return copy
    }

    /// The best `k` live documents by BM25, best first.
    ///
    /// A phrase's postings say only that its tokens are all there, so a query with
    /// phrases runs in two steps: the postings give the best documents by an upper bound
    /// (the phrase counted as often as its rarest token), and their text, read in that
    /// order, gives exact scores, until no document left could beat the k-th exact one;
    /// when the first step's list runs out before that, it is made four times deeper.
    /// With `allowed`, only the documents it holds compete (``SearchFilter``).
    func top(_ query: PostingsQuery, k: Int, now: Double, exhaustive: Bool = false, rows: CandidateRows? = nil,
             allowed: FilterRows? = nil) throws -> [TopK.Entry] {
        let rows = rows ?? CandidateRows(connection: connection)
        prefetch(query)
        let idfs = weightedIDFs(query)
        guard query.clauses.contains(where: { $0.units.contains { $0.tokens.count > 1 } }) else {
            return try collect(query, idfs: idfs, k: k, now: now, exhaustive: exhaustive, rows: rows, allowed: allowed)
        }
        var depth = k * 4
        while true {
            let estimates = try collect(query, idfs: idfs, k: depth, now: now, exhaustive: exhaustive, rows: rows, allowed: allowed)
            var verified = TopK(capacity: k)
            var proven = false
            for entry in estimates {
                // Estimates are upper bounds: one below the k-th exact score cannot get in (one
                // equal to it might, on its key).
                if entry.score < verified.threshold {
                    proven = true
                    break
                }
                if let exact = try exactScore(entry.rowid, query, idfs: idfs) { verified.collect(exact, key: entry.key, rowid: entry.rowid) }
            }
            if proven || estimates.count < depth || depth >= 256 * k { return verified.sorted }
            depth *= 4
        }
    }

    /// `entries` scored again by `query` (exactly, as ``top(_:k:now:exhaustive:rows:)``
    /// scores a document), the best `k` of them, best first: a second stage over a first
    /// answer. Entries the query does not match, or no longer in a segment, are left out.
    func rescored(_ entries: [TopK.Entry], by query: PostingsQuery, k: Int) throws -> [TopK.Entry] {
        let idfs = weightedIDFs(query)
        var heap = TopK(capacity: k)
        for entry in entries {
            if let score = try exactScore(entry.rowid, query, idfs: idfs) { heap.collect(score, key: entry.key, rowid: entry.rowid) }
        }
        return heap.sorted
    }

    /// Asks for the query's postings in every segment at once (``SegmentReader/prefetch(_:)``).
    private func prefetch(_ query: PostingsQuery) {
        for segment in segments {
            for clause in query.clauses {
                for unit in clause.units {
                    for token in unit.tokens {
                        if let term = token.withUnsafeBytes({ segment.term($0) }) { segment.prefetch(term) }
                    }
                }
            }
        }
    }

    /// Each unit's idf times its weight, by clause (a word's forms at their class's idf).
    func weightedIDFs(_ query: PostingsQuery) -> [[Double]] {
        query.clauses.map { clause in
            let containing = clause.units.map { unit in unit.tokens.map(dictionary.frequency).min() ?? 0 }
            let classFrequency = zip(clause.units, containing).filter(\.0.isForm).map(\.1).max() ?? 0
            return zip(clause.units, containing).map { unit, containing in
                unit.weight * BM25.idf(documents: dictionary.documents, containing: unit.isForm ? classFrequency : containing)
            }
        }
    }

    /// What a matching clause adds besides its units' scores.
    static func bonus(_ clause: PostingsQuery.Clause, idfs: [Double]) -> Double {
        clause.bonus * (idfs.max() ?? 0)
    }

    /// The best `k` live documents by the postings' scores (for phrases, their bounds).
    ///
    /// Documents deleted or replaced since their segment was written keep their postings
    /// until a merge, and expired ones until the next write: rather than look up every
    /// document that enters the heap, the search looks up the k it ends with, and runs
    /// again without those that are gone (rare: only when gone documents were among the
    /// best). After a few such runs it looks every entrant up instead.
    private func collect(_ query: PostingsQuery, idfs: [[Double]], k: Int, now: Double, exhaustive: Bool, rows: CandidateRows,
                         allowed: FilterRows?) throws -> [TopK.Entry] {
        let live = LivenessCheck(rows: rows, now: now, filters: allowed != nil)
        allowed?.keep(segments: segments.map(\.info.id))
        for segment in segments { live.exclude(reader.segments.gone(segment: segment.info.id)) }
        for attempt in 0..<5 {
            if attempt == 4 { live.checksEveryEntrant = true }
            let heap = try collectOnce(query, idfs: idfs, k: k, exhaustive: exhaustive, live: live, allowed: allowed)
            let found = heap.sorted
            let (gone, expired) = try live.gone(found.map(\.rowid))
            if gone.isEmpty, expired.isEmpty { return found }
            // Gone is forever: remembered for every later search in this process.
            let goneSet = Set(gone)
            for segment in segments where segment.info.minimumRowid <= (gone.max() ?? 0) {
                reader.segments.markGone(segment: segment.info.id,
                                             rowids: gone.filter { segment.info.minimumRowid...segment.info.maximumRowid ~= $0 })
            }
            live.exclude(goneSet.union(expired))
        }
        return try collectOnce(query, idfs: idfs, k: k, exhaustive: exhaustive, live: live, allowed: allowed).sorted
    }

    private func collectOnce(_ query: PostingsQuery, idfs: [[Double]], k: Int, exhaustive: Bool, live: LivenessCheck,
                             allowed: FilterRows?) throws -> TopK {
        var heap = TopK(capacity: k)
        let buffers = WindowBuffers()
        for segment in segments {
            // Each unit's postings in this segment, clause by clause; a unit whose tokens are
            // not all here matches nothing here.
            var postings: [TermPostings] = []
            var units: [WindowSearch.Unit] = []
            var clauses: [WindowSearch.Clause] = []
            for (index, clause) in query.clauses.enumerated() {
                let first = units.count
                for (unitIndex, unit) in clause.units.enumerated() {
                    var found: [TermPostings] = []
                    var maximum = Float.infinity
                    for token in unit.tokens {
                        guard let term = token.withUnsafeBytes({ segment.term($0) }) else { break }
                        found.append(reader.segments.postings(segment: segment, term: term))
                        maximum = min(maximum, term.maximumBound)
                    }
                    guard found.count == unit.tokens.count, !found.isEmpty else { continue }
                    units.append(WindowSearch.Unit(firstCursor: postings.count, cursorCount: found.count, weight: idfs[index][unitIndex],
                                                   maximum: maximum))
                    postings += found
                }
                if units.count == first {
                    if query.requireAll { break }
                    continue
                }
                clauses.append(WindowSearch.Clause(units: first..<units.count, bonus: Self.bonus(clause, idfs: idfs[index])))
            }
            guard !clauses.isEmpty, !query.requireAll || clauses.count == query.clauses.count else { continue }
            let cursors = UnsafeMutableBufferPointer<PostingCursor>.allocate(capacity: postings.count)
            for (i, list) in postings.enumerated() { (cursors.baseAddress! + i).initialize(to: PostingCursor(list, documentLimit: segment.documentCount)) }
            defer {
                for cursor in cursors { cursor.release() }
                cursors.deallocate()
            }
            let ordinals = allowed?.ordinals(segment)
            let excluded = live.excludedOrdinals(segment.rowids)
            withExtendedLifetime(postings) {
                do {
                    let lengths = segment.lengths
                    (ordinals ?? []).withUnsafeBufferPointer { passing in
                        let search = WindowSearch(cursors: cursors, units: units, clauses: clauses, documents: segment.documents, lengths: lengths,
                                                  averageLength: dictionary.averageLength,
                                                  boundFactor: BM25.boundFactor(builtWith: segment.info.averageLength, scoringWith: dictionary.averageLength),
                                                  buffers: buffers, allowed: ordinals == nil ? nil : passing)
                        search.run(heap: &heap, exhaustive: exhaustive, requireAll: query.requireAll) { ordinal, score in
                            live.admit(ordinal, score, rowids: segment.rowids, passing: passing, excluded: excluded)
                        }
                    }
                }
            }
            if let failure = live.failure { throw failure }
        }
        return heap
    }

    /// A document's columns in order (title, keywords, description, body) and its language.
    func analysedText(of rowid: Int64) throws -> (columns: [String], language: String?)? {
        let item = try connection.statement("SELECT title, keywords, coalesce(description, ''), language FROM items WHERE rowid = ?")
        item.bind(1, rowid)
        guard try item.step() else { return nil }
        let body = try connection.statement("SELECT body FROM item_bodies WHERE rowid = ?")
        body.bind(1, rowid)
        let text = try body.step() ? StoredText.text(body, 0, dictionaries: reader.bodyDictionaries, connection: connection) : ""
        return ([item.string(0) ?? "", StoredKeywords.analysed(item.string(1) ?? ""), item.string(2) ?? "", text], item.string(3))
    }
}
