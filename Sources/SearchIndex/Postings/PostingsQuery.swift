/// A query the segments answer: clauses of units, where a unit is one token (a term) or
/// several in a row (a phrase) with a weight its BM25 contribution is multiplied by, a
/// clause matches when any of its units does, and the query when every clause does
/// (`requireAll`) or any. A clause that matches also adds its bonus times its largest
/// weighted idf — BM25+'s δ (Lv & Zhai, 2011), which makes a document holding one more query
/// term worth at least that much more, whatever its length.
struct PostingsQuery {
    struct Unit: Hashable {
        var tokens: [[UInt8]]
        var weight: Double = 1
        /// One form of a word's class (the word as written and its stems): every such unit of
        /// a clause takes the idf of the class's most frequent form, as Lucene's
        /// `SynonymQuery` does, so that a word whose forms are split over several lists
        /// weighs what a word with one list of that reach does.
        var isForm = false
    }

    struct Clause {
        var units: [Unit]
        var bonus: Double = 0
    }

    var clauses: [Clause]
    var requireAll: Bool

    init(clauses: [Clause], requireAll: Bool) {
        self.clauses = clauses
        self.requireAll = requireAll
    }

    /// Clauses of unweighted units, without bonuses.
    init(clauses: [[[[UInt8]]]], requireAll: Bool) {
        self.init(clauses: clauses.map { Clause(units: $0.map { Unit(tokens: $0) }) }, requireAll: requireAll)
    }
}
