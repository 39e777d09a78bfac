/// Whether a document found in a segment is still an item, not expired, and passes the
/// search's filter (a bit, checked for every entrant): by default the
/// search trusts the postings and checks the documents it ends with (``gone(_:)``), leaving
/// out those found gone (``exclude(_:)``); with ``checksEveryEntrant`` every document that
/// would enter the heap is looked up. The first database error is kept for the caller,
/// since the search loops cannot throw.
final class LivenessCheck {
    private let rows: CandidateRows
    private let now: Double
    /// The filter's rows, when ``filters``.
    private let allowed: RowSet
    private let filters: Bool
    private var excluded = Set<Int64>()
    var checksEveryEntrant = false
    private(set) var failure: Error?

    init(rows: CandidateRows, now: Double, allowed: RowSet? = nil) {
        self.rows = rows
        self.now = now
        self.allowed = allowed ?? RowSet()
        filters = allowed != nil
    }

    /// `score` for a document that may enter, else nil.
    @inline(__always)
    func admit(_ rowid: Int64, _ score: Double) -> Double? {
        if filters, !allowed.contains(rowid) { return nil }
        if !excluded.isEmpty, excluded.contains(rowid) { return nil }
        guard checksEveryEntrant else { return score }
        guard failure == nil else { return nil }
        do {
            try rows.load(CollectionOfOne(rowid))
            return state(rowid) == .live ? score : nil
        } catch {
            failure = error
            return nil
        }
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
