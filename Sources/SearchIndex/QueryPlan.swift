import FoundationEssentials
import Glibc
import Items
import SearchModel

/// What a query asks of the segments: one clause per distinct query term — the word
/// itself and its stems, so `flexibility` also finds `flexible`, the exact form ranked
/// above a stemmed match — ranked OR with a bonus for each term a document holds
/// (``PostingsQuery``), plus optional clauses that only add to the score (a hyphenated
/// word's phrase). Pure, given the index's term frequencies and the tokenizer.
///
/// - A word of several tokens is its tokens, each a term, with the phrase as a boost
///   (`pro-inflammatory` finds `inflammatory`, and ranks the phrase first); a CJK run
///   stays one phrase, as it is indexed as bigrams.
/// - A term given n times weighs √n, as a request written as a paragraph names what
///   matters most more than once (measured on Cranfield and CACM: counting each repeat in
///   full, as FTS5 does, costs nDCG on Cranfield; counting it once loses 0.03 on CACM).
/// - A word's forms (as written, and its stems) share the idf of its most frequent form
///   (``PostingsQuery/Unit/isForm``).
/// - For a long request (``RelevanceFeedback``), the words its first answer's best
///   documents share are optional clauses after the boosts, with which that answer is
///   scored again.
/// - Past ``maximumClauses`` distinct terms (a pasted paragraph), the rarest are kept: the
///   ones that tell documents apart; the others are dropped.
/// - Only while typing (``SearchRequest/typing``), the last word also matches its
///   completions, each at ``completionWeight`` so they widen the match without outweighing
///   whole words.
/// - Words the index does not know at all are also searched under their spelling
///   corrections (``TypoTolerance``), at ``correctionWeight``.
struct QueryPlan {
    /// How much the exact form adds beside its stem class (whose weight is 1): a document
    /// with the word as typed scores as if it held it twice.
    static let exactWeight = 1.0
    /// BM25+'s δ: what each query term a document holds adds, in units of its idf, for a
    /// query of up to ``bonusTerms`` terms — a person typing two or three words wants them
    /// all; it fades to nothing at twice that (measured on Cranfield: any bonus on long
    /// natural-language queries costs nDCG, 0.25 costs 0.006, BENCHMARKS.md).
    static let termBonus = 0.5
    static let bonusTerms = 3
    static let phraseWeight = 0.5
    static let completionWeight = 0.5
    static let correctionWeight = 0.8
    /// Distinct query terms searched at most.
    static let maximumClauses = 32
    /// Completions a prefix is searched under at most, the most frequent first (as
    /// Elasticsearch's `max_expansions`): a three-letter prefix can start thousands of words.
    static let maximumCompletions = 50

    /// The clauses: the terms (each counted for the bonus and for "every word") first, then
    /// the boosts.
    var query: PostingsQuery
    /// How many of ``query``'s clauses are terms (the rest are boosts).
    var termClauses: Int
    /// The original query words each term came from, for corrections.
    var corrections: [String: [String]] = [:]
    /// Query words left out of a long query.
    var dropped: [String] = []
    /// Tokens, in document form, a snippet marks.
    var highlighted: Set<[UInt8]> = []
    /// Whether spelling corrections were looked up (they depend on the whole vocabulary).
    var searchedCorrections = false

    private struct Term {
        var token: [UInt8]
        var word: String
        var isPhrase: Bool
        var tokens: [[UInt8]]
        /// How often the query gives it.
        var count = 1
    }

    /// How much a term given n times weighs: n to this power.
    static let repeatExponent = 0.5

    /// How many distinct terms the query searches (before feedback): ``RelevanceFeedback``
    /// applies from its threshold on.
    var distinctTerms: Int

    /// - Parameter expansion: words added by ``RelevanceFeedback``, each an optional clause
    ///   of its forms at its weight.
    init(_ query: SearchQuery, typing: Bool, terms dictionary: TermDictionary, tokenizer: SearchTokenizer.Session, languages: [String],
         expansion: [RelevanceFeedback.Term] = []) {
        // Terms, in order of first appearance; hyphenated words give boosts.
        var terms: [Term] = []
        var positions: [[UInt8]: Int] = [:]
        var boosts: [[[UInt8]]] = []
        func add(_ token: [UInt8], word: String, phrase: [[UInt8]]? = nil) {
            let key = phrase.map { $0.joined(separator: [0x20]).map { $0 } } ?? token
            if let at = positions[key] {
                terms[at].count += 1
                return
            }
            positions[key] = terms.count
            terms.append(Term(token: token, word: word, isPhrase: phrase != nil, tokens: phrase ?? [token]))
        }
        for (index, tokens) in query.tokens.enumerated() {
            let bytes = tokens.map { Array($0.utf8) }
            let word = query.words[index]
            if bytes.count == 1 {
                add(bytes[0], word: word)
            } else if bytes.contains(where: { $0.contains { $0 >= 0xE1 } }) {
                add(bytes.joined().map { $0 }, word: word, phrase: bytes)
            } else {
                for token in bytes { add(token, word: word) }
                boosts.append(bytes)
            }
        }
        // A pasted paragraph: keep the terms that say most (the rarest).
        if terms.count > Self.maximumClauses {
            let ranked = terms.indices.sorted {
                let a = terms[$0].tokens.map(dictionary.frequency).max() ?? 0
                let b = terms[$1].tokens.map(dictionary.frequency).max() ?? 0
                return a != b ? a < b : $0 < $1
            }
            let kept = Set(ranked.prefix(Self.maximumClauses))
            dropped = terms.indices.filter { !kept.contains($0) }.map { terms[$0].word }
            terms = terms.indices.filter(kept.contains).map { terms[$0] }
        }
        let stemmers = ([Stemmers.defaultCode] + languages).compactMap { tokenizer.stemmers.language($0) }
        var clauses: [PostingsQuery.Clause] = []
        for (index, term) in terms.enumerated() {
            var units = Self.forms(of: term.isPhrase ? nil : term.token, phrase: term.tokens, stemmers: stemmers, tokenizer: tokenizer,
                                   weight: pow(Double(term.count), Self.repeatExponent))
            if typing, index == terms.count - 1, query.lastWordIsPrefix, !term.isPhrase {
                for completion in dictionary.completions(of: term.token, limit: Self.maximumCompletions) {
                    Self.add([completion], Self.completionWeight, to: &units)
                }
            }
            highlighted.formUnion(units.flatMap(\.tokens))
            clauses.append(PostingsQuery.Clause(units: units, bonus: 0))
        }
        // The bonus for holding more of the terms, by the query's length.
        let bonus = Self.termBonus * min(1, max(0, Double(2 * Self.bonusTerms - clauses.count) / Double(Self.bonusTerms)))
        for index in clauses.indices { clauses[index].bonus = bonus }
        termClauses = clauses.count
        distinctTerms = termClauses
        for phrase in boosts { clauses.append(PostingsQuery.Clause(units: [.init(tokens: phrase, weight: Self.phraseWeight)])) }
        for term in expansion {
            clauses.append(PostingsQuery.Clause(units: Self.forms(of: term.token, phrase: [term.token], stemmers: stemmers, tokenizer: tokenizer,
                                                                  weight: term.weight)))
        }
        self.query = PostingsQuery(clauses: clauses, requireAll: false)
        addCorrections(terms: terms, dictionary: dictionary)
    }

    /// A term's units: a phrase alone, or a word's forms — the word as written at
    /// ``exactWeight`` and its stem class, in each language the index holds: the marked
    /// stem (the words with that stem), and the stem itself when it is a word that is its
    /// own stem — each at `weight` times its own.
    private static func forms(of word: [UInt8]?, phrase: [[UInt8]], stemmers: [Stemmers.Language], tokenizer: SearchTokenizer.Session,
                              weight: Double) -> [PostingsQuery.Unit] {
        guard let word else { return [.init(tokens: phrase, weight: weight)] }
        var units: [PostingsQuery.Unit] = []
        add([word], Self.exactWeight * weight, to: &units)
        var stemClass: [[UInt8]] = []
        for stemmer in stemmers {
            if let marked = tokenizer.markedStem(of: word, stemmer) {
                stemClass.append(marked)
                let stem = Array(marked.dropFirst())
                if tokenizer.markedStem(of: stem, stemmer) == nil { stemClass.append(stem) }
            } else {
                stemClass += [word, [SearchTokenizer.Session.stemMarker] + word]
            }
        }
        var seen = Set<[UInt8]>()
        for token in stemClass where seen.insert(token).inserted { add([token], weight, to: &units) }
        for index in units.indices { units[index].isForm = true }
        return units
    }

    /// Adds a unit, or its weight to the unit of the same tokens.
    private static func add(_ tokens: [[UInt8]], _ weight: Double, to units: inout [PostingsQuery.Unit]) {
        if let at = units.firstIndex(where: { $0.tokens == tokens }) { units[at].weight += weight } else { units.append(.init(tokens: tokens, weight: weight)) }
    }

    /// Spelling alternatives for terms the index does not hold in any form, each one more
    /// unit of its term's clause.
    private mutating func addCorrections(terms: [Term], dictionary: TermDictionary) {
        var unknown: [(clause: Int, target: [Unicode.Scalar], edits: Int, word: String)] = []
        for (index, term) in terms.enumerated() where !term.isPhrase {
            let text = String(decoding: term.token, as: UTF8.self)
            guard let first = text.unicodeScalars.first, first.properties.isAlphabetic, !SearchTokenizer.isCJK(first.value) else { continue }
            let edits = TypoTolerance.allowedEdits(forLength: text.unicodeScalars.count)
            guard edits > 0, query.clauses[index].units.allSatisfy({ $0.tokens.allSatisfy { dictionary.frequency($0) == 0 } }) else { continue }
            unknown.append((index, Array(text.unicodeScalars), edits, term.word))
            if unknown.count == Self.maximumCorrectedWords { break }
        }
        guard !unknown.isEmpty else { return }
        searchedCorrections = true
        let share = max(Self.minimumCorrectionBudget, Self.correctionBudget / unknown.count)
        for word in unknown {
            // A correction is a word of four letters or more: `less` is not corrected into `les`.
            let found = dictionary.fuzzyTerms(near: word.target, edits: word.edits, budget: share)
                .filter { String(decoding: $0.term, as: UTF8.self).unicodeScalars.count >= TypoTolerance.shortestCorrection }
            let best = found.sorted { $0.documents != $1.documents ? $0.documents > $1.documents : $0.term.lexicographicallyPrecedes($1.term) }
                .prefix(5).map(\.term)
            guard !best.isEmpty else { continue }
            for spelling in best {
                query.clauses[word.clause].units.append(.init(tokens: [spelling], weight: Self.correctionWeight))
                highlighted.insert(spelling)
            }
            corrections[word.word] = best.map { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// Dictionary entries the spelling corrections of one query read at most, over all its
    /// words and segments; each unknown word gets an equal share (at least
    /// ``minimumCorrectionBudget``), so a query of many unknown words costs no more than a
    /// few milliseconds of one core, whatever the size of the vocabulary.
    static let correctionBudget = 60_000
    static let minimumCorrectionBudget = 2_000
    /// Words of one query that are corrected at most (the first ones).
    static let maximumCorrectedWords = 16
}
