import FoundationEssentials
import Items
import SQLite

/// Where one item ranks for a query, and why (``Findability``): the search run as any
/// search of this index runs (the same plan, feedback and ranking) down to the first
/// ``SearchRequest/Limits/results`` results, then the item's own score taken apart — each
/// query word's forms and the fields holding them, BM25's points, the ranking's factors.
extension IndexSearch {
    /// Results above the item that are named.
    static let neighboursShown = 5

    func findability(of key: ItemKey, _ asked: SearchRequest) throws -> Findability {
        var request = asked
        request.offset = 0
        request.limit = SearchRequest.Limits.results
        request.facets = []
        request.sort = .relevance
        request.snippets = false
        let lookup = try connection.statement("SELECT rowid, title, expires FROM items WHERE owner = ? AND uid = ?")
        lookup.bind(1, key.storedOwner)
        lookup.bind(2, key.identifier)
        guard try lookup.step() else {
            return Findability(query: request.text, identifier: key.identifier, indexed: false, matches: false, findings: [.notIndexed])
        }
        let rowid = lookup.int64(0)
        let title = lookup.string(1)
        let expires = lookup.optionalDouble(2)

        let query = try SearchQuery(request.text) { tokenizer.tokens($0, query: true) }
        let languages = try IndexWriter.languages(connection)
        let first = QueryPlan(query, typing: request.typing, terms: segments.dictionary, tokenizer: tokenizer, languages: languages)
        let rows = CandidateRows(connection: connection)
        let selection = try best(query, plan: first, languages: languages, request, round: nil, segments: segments, rows: rows, allowed: nil)
        let plan = selection.plan
        let position = selection.page.firstIndex { $0.rowid == rowid }

        var report = Findability(query: request.text, identifier: key.identifier, title: title, indexed: true, matches: false,
                                 rank: position.map { $0 + 1 }, searched: selection.page.count, total: selection.total,
                                 totalIsExact: selection.totalIsExact, corrections: plan.corrections)
        if let expires, expires <= request.now.timeIntervalSince1970 {
            report.indexed = false
            report.findings.append(.expired(Date(timeIntervalSince1970: expires)))
        }
        report.words = try words(of: rowid, plan: plan, typing: request.typing)
        let idfs = segments.weightedIDFs(plan.query)
        let relevance = try segments.exactScore(rowid, plan.query, idfs: idfs)
        report.matches = relevance != nil
        try rows.load([rowid])
        if let relevance, let row = rows.row(rowid) {
            let engagement = Ranking.engagementCounts(row.engagement)
            report.score = Ranking.parts(bm25: -relevance, quality: row.quality, rating: row.rating, ratingScale: row.ratingScale,
                                         ratingCount: row.ratingCount, impressions: engagement.impressions, clicks: engagement.clicks,
                                         updated: Date(timeIntervalSince1970: row.updated), now: request.now)
        }
        let neighbours = position.map { Array(max(0, $0 - Self.neighboursShown)..<$0) } ?? Array(selection.page.indices.prefix(Self.neighboursShown))
        report.above = try neighbours.map { index in
            let ranked = selection.page[index]
            let read = try connection.statement("SELECT uid, title FROM items WHERE rowid = ?")
            read.bind(1, ranked.rowid)
            _ = try read.step()
            return Findability.Neighbour(rank: index + 1, identifier: read.string(0) ?? "", title: read.string(1) ?? "", score: ranked.candidate.score)
        }
        report.findings += Self.findings(report, termClauses: plan.termClauses)
        return report
    }

    /// What keeps the item out or down, from what was found.
    static func findings(_ report: Findability, termClauses: Int) -> [Findability.Finding] {
        guard report.indexed else { return [] }
        guard report.matches else { return [.noWordMatches] }
        var findings: [Findability.Finding] = []
        let terms = report.words.prefix(termClauses)
        let missing = terms.filter { !$0.matched }.map(\.word)
        if !missing.isEmpty { findings.append(.missingWords(missing)) }
        let bodyOnly = terms.filter { word in
            word.matched && word.forms.allSatisfy { form in form.occurrences.keys.allSatisfy { $0 == .body } }
        }.map(\.word)
        if !bodyOnly.isEmpty { findings.append(.onlyInBody(bodyOnly)) }
        let corrected = terms.filter { word in
            word.matched && word.forms.allSatisfy { $0.occurrences.isEmpty || $0.kind == .correction }
        }.map(\.word)
        if !corrected.isEmpty { findings.append(.onlyCorrected(corrected)) }
        if let score = report.score, score.quality < 1 { findings.append(.stuffed) }
        if report.rank == nil { findings.append(.belowSearched(report.searched)) }
        return findings
    }

    /// Each clause of the plan as the item holds it: every form, where it occurs, and the
    /// points the clause adds (``SegmentSearcher/exactScore(_:_:idfs:)``'s sums, per clause).
    private func words(of rowid: Int64, plan: QueryPlan, typing: Bool) throws -> [Findability.Word] {
        let query = plan.query
        guard let document = try segments.analysedText(of: rowid) else { return [] }
        let units = query.clauses.flatMap(\.units)
        // Occurrences per field: the text of one field at a time, the others empty.
        var perField = [[Double]](repeating: [], count: Findability.Field.allCases.count)
        for field in perField.indices {
            var columns = [String](repeating: "", count: document.columns.count)
            columns[field] = document.columns[field]
            let weight = Double(BM25.columnWeights[field])
            perField[field] = PhraseMatcher.frequencies(of: units.map(\.tokens), in: columns, language: document.language, tokenizer: tokenizer)
                .map { ($0 / weight).rounded() }
        }
        let idfs = segments.weightedIDFs(query)
        let length = segments.place(of: rowid).map { Double($0.0.lengths[Int($0.1)]) } ?? 0
        let norm = BM25.Norm(averageLength: segments.dictionary.averageLength)
        let spellings = Set(plan.corrections.values.joined())
        var words: [Findability.Word] = []
        var unit = 0
        for (index, clause) in query.clauses.enumerated() {
            var forms: [Findability.Form] = []
            var points = 0.0
            for (position, part) in clause.units.enumerated() {
                var occurrences: [Findability.Field: Int] = [:]
                var weighted = 0.0
                for (field, name) in Findability.Field.allCases.enumerated() where perField[field][unit] > 0 {
                    occurrences[name] = Int(perField[field][unit])
                    weighted += perField[field][unit] * Double(BM25.columnWeights[field])
                }
                let idf = idfs[index][position]
                if weighted > 0 { points += idf * norm.saturation(weighted, length: length) }
                let kind = Self.kind(of: part, at: position, in: clause, isTerm: index < plan.termClauses, typing: typing, spellings: spellings)
                forms.append(Findability.Form(text: Self.display(part.tokens), kind: kind, occurrences: occurrences, weight: idf))
                unit += 1
            }
            if forms.contains(where: { !$0.occurrences.isEmpty }) { points += SegmentSearcher.bonus(clause, idfs: idfs[index]) }
            let word = forms.first { $0.kind == .written }?.text ?? forms.first?.text ?? ""
            words.append(Findability.Word(word: word, forms: forms, points: points))
        }
        return words
    }

    /// How a unit of a clause came to be searched.
    private static func kind(of unit: PostingsQuery.Unit, at position: Int, in clause: PostingsQuery.Clause, isTerm: Bool, typing: Bool,
                             spellings: Set<String>) -> Findability.FormKind {
        if unit.tokens.count > 1 { return .phrase }
        if !isTerm { return unit.isForm ? .feedback : .phrase }
        if unit.isForm { return position == 0 ? .written : .stem }
        if spellings.contains(String(decoding: unit.tokens[0], as: UTF8.self)) { return .correction }
        return typing ? .completion : .correction
    }

    /// A unit's tokens as a person reads them: a marked stem as the stem and an ellipsis
    /// (every word with that stem), a phrase's tokens with spaces, a CJK run joined.
    private static func display(_ tokens: [[UInt8]]) -> String {
        if let run = SegmentSearcher.characters(ofBigrams: tokens) { return String(decoding: run, as: UTF8.self) }
        return tokens.map { token in
            if token.first == SearchTokenizer.Session.stemMarker { return String(decoding: token.dropFirst(), as: UTF8.self) + "…" }
            return String(decoding: token, as: UTF8.self)
        }.joined(separator: " ")
    }
}
