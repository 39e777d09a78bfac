/// Whether a document found in a segment is still an item, not expired, and passes the
/// search's filter (a bit, checked for every entrant): by default the
/// search trusts the postings and checks the documents it ends with (``gone(_:)``), leaving
/// out those found gone (``exclude(_:)``); with ``checksEveryEntrant`` every document that
/// would enter the heap is looked up. The first database error is kept for the caller,
/// since the search loops cannot throw.
final class LivenessCheck {
    private let rows: CandidateRows
    private let now: Double
    /// Whether the search has a filter, whose bits ``admit(_:_:rowids:passing:excluded:)`` is given.
    private let filters: Bool
    private var excluded = Set<Int64>()
    var checksEveryEntrant = false
    private(set) var failure: Error?

    init(rows: CandidateRows, now: Double, filters: Bool = false) {
        self.rows = rows
        self.now = now
        self.filters = filters
    }

    /// `score` for the document at `ordinal` of a segment whose rowids are `rowids`, when it
    /// may enter, else nil: `passing` holds the filter's bits by ordinal (with ``filters``),
    /// `excluded` the ordinals of documents found gone (``excludedOrdinals(_:)``). The rowid
    /// is read only to look a document up (``checksEveryEntrant``).
    @inline(__always)
    func admit(_ ordinal: Int32, _ score: Double, rowids: UnsafeBufferPointer<Int64>, passing: UnsafeBufferPointer<UInt64>,
               excluded: Set<Int32>) -> Double? {
        if filters, !WindowSearch.contains(passing, Int(ordinal)) { return nil }
        if !excluded.isEmpty, excluded.contains(ordinal) { return nil }
        guard checksEveryEntrant else { return score }
        guard failure == nil else { return nil }
        let rowid = rowids[Int(ordinal)]
        do {
            try rows.load(CollectionOfOne(rowid))
            return state(rowid) == .live ? score : nil
        } catch {
            failure = error
            return nil
        }
    }

    /// The ordinals of the excluded documents among a segment's `rowids` (ascending).
    func excludedOrdinals(_ rowids: UnsafeBufferPointer<Int64>) -> Set<Int32> {
        guard !excluded.isEmpty, let first = rowids.first, let last = rowids.last else { return [] }
        var ordinals = Set<Int32>()
        for rowid in excluded where first...last ~= rowid {
            let ordinal = rowids.firstIndex(atLeast: rowid)
            if ordinal < rowids.count, rowids[ordinal] == rowid { ordinals.insert(Int32(ordinal)) }
        }
        return ordinals
    }

    func exclude<S: Sequence>(_ rowids: S) where S.Element == Int64 { excluded.formUnion(rowids) }

    /// Those of `rowids` whose item is gone, and those that have expired (their rows read in
    /// one statement, and kept for the ranking).
    func gone(_ rowids: [Int64]) throws -> (gone: [Int64], expired: [Int64]) {
        if let failure { throw failure }
        try rows.load(rowids)
        var gone: [Int64] = []
        var expired: [Int64] = []
        for rowid in rowids {
            switch state(rowid) {
            case .live: break
            case .gone: gone.append(rowid)
            case .expired: expired.append(rowid)
            }
        }
        return (gone, expired)
    }

    private enum State { case live, gone, expired }

    private func state(_ rowid: Int64) -> State {
        guard let row = rows.row(rowid) else { return .gone }
        if let expires = row.expires, expires <= now { return .expired }
        return .live
    }
}
