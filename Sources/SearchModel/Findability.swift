#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ItemModel
import JSON
import TextUtilities

/// Where one item ranks for one query in an index, and why: which of the query's words
/// matched which of its fields in which form, the parts of its score, the results above
/// it and what keeps it out or down. What `validate URL --query` and
/// `GET /v1/items/{id}/findability` say to the page's or item's owner.
public struct Findability: Sendable, Equatable {
    /// A field of an item, in the index's column order (``fieldWeights``).
    public enum Field: String, Sendable, CaseIterable {
        case title, keywords, description, body
    }

    /// How much one occurrence in each field counts (BM25F weights, title first).
    public static let fieldWeights: [Field: Int] = [.title: 10, .keywords: 5, .description: 3, .body: 1]

    /// How a form of a query word came to be searched.
    public enum FormKind: String, Sendable {
        /// The word as typed.
        case written
        /// A word sharing its stem (`flexible` for `flexibility`).
        case stem
        /// A word it begins, while typing.
        case completion
        /// A spelling correction of a word the index does not know.
        case correction
        /// A hyphenated word's phrase, which only adds to the score.
        case phrase
        /// A word the query's best results share (relevance feedback).
        case feedback
    }

    /// One form of a query word, and where the item holds it.
    public struct Form: Sendable, Equatable {
        public var text: String
        public var kind: FormKind
        /// Occurrences in each field (of the first 64 KB of each); empty when it is not there.
        public var occurrences: [Field: Int]
        public var weight: Double

        public init(text: String, kind: FormKind, occurrences: [Field: Int], weight: Double) {
            self.text = text
            self.kind = kind
            self.occurrences = occurrences
            self.weight = weight
        }
    }

    /// One query word (or phrase or feedback word): its forms and what it added.
    public struct Word: Sendable, Equatable {
        public var word: String
        public var forms: [Form]
        /// What the word added to the relevance (its forms' BM25 and the bonus for holding it).
        public var points: Double
        public var matched: Bool { forms.contains { !$0.occurrences.isEmpty } }

        public init(word: String, forms: [Form], points: Double) {
            self.word = word
            self.forms = forms
            self.points = points
        }
    }

    /// The parts of a score: relevance × quality × rating × engagement × freshness.
    public struct Score: Sendable, Equatable {
        public var relevance: Double
        public var quality: Double
        public var rating: Double
        public var engagement: Double
        public var freshness: Double
        public var total: Double

        public init(relevance: Double, quality: Double, rating: Double, engagement: Double, freshness: Double, total: Double) {
            self.relevance = relevance
            self.quality = quality
            self.rating = rating
            self.engagement = engagement
            self.freshness = freshness
            self.total = total
        }
    }

    /// A result ranked above the item.
    public struct Neighbour: Sendable, Equatable {
        public var rank: Int
        public var identifier: String
        public var title: String
        public var score: Double

        public init(rank: Int, identifier: String, title: String, score: Double) {
            self.rank = rank
            self.identifier = identifier
            self.title = title
            self.score = score
        }
    }

    /// What keeps the item out of the results or down in them, as a value to switch on.
    public enum Finding: Sendable, Equatable {
        /// The index holds no item with this identifier.
        case notIndexed
        /// The item's expiration date has passed: no search shows it.
        case expired(Date)
        /// None of the query's words is in the item in any form searched.
        case noWordMatches
        /// Words of the query the item lacks in every form.
        case missingWords([String])
        /// Words the item holds only in its body (a title or description counts 10 or 3 times as much).
        case onlyInBody([String])
        /// Words matched only through a spelling correction (at 0.8 of a word).
        case onlyCorrected([String])
        /// Halved as keyword-stuffed (a word over a third of the title, or a quarter of the text).
        case stuffed
        /// Matches, but ranks below the results looked at.
        case belowSearched(Int)

        public var code: String {
            switch self {
            case .notIndexed: "not-indexed"
            case .expired: "expired"
            case .noWordMatches: "no-word-matches"
            case .missingWords: "missing-words"
            case .onlyInBody: "only-in-body"
            case .onlyCorrected: "only-corrected"
            case .stuffed: "stuffed"
            case .belowSearched: "below-searched"
            }
        }

        /// `{code, message}`, with the finding's words, date or count.
        public var json: JSONValue {
            var fields: [(String, JSONValue)] = [("code", .string(code)), ("message", .string(message))]
            switch self {
            case .missingWords(let words), .onlyInBody(let words), .onlyCorrected(let words): fields.append(("words", .array(words.map(JSONValue.string))))
            case .expired(let date): fields.append(("expired", JSONValue(date.timeIntervalSince1970)))
            case .belowSearched(let count): fields.append(("searched", JSONValue(count)))
            case .notIndexed, .noWordMatches, .stuffed: break
            }
            return .object(JSONObject(fields))
        }

        /// A finding read back from ``json``; nil for a code this version does not know.
        public init?(json: JSONValue) {
            let words = json["words"]?.arrayValue?.compactMap(\.stringValue) ?? []
            switch json["code"]?.stringValue {
            case "not-indexed": self = .notIndexed
            case "expired": self = .expired(Date(timeIntervalSince1970: json["expired"]?.doubleValue ?? 0))
            case "no-word-matches": self = .noWordMatches
            case "missing-words": self = .missingWords(words)
            case "only-in-body": self = .onlyInBody(words)
            case "only-corrected": self = .onlyCorrected(words)
            case "stuffed": self = .stuffed
            case "below-searched": self = .belowSearched(json["searched"]?.intValue ?? 0)
            default: return nil
            }
        }

        public var message: String {
            switch self {
            case .notIndexed: "the index holds no item with this identifier"
            case .expired(let date): "the item expired at \(ISO8601.string(fromSeconds: date.timeIntervalSince1970)): no search shows it"
            case .noWordMatches: "none of the query's words is in the item's title, keywords, description or text, in any form searched"
            case .missingWords(let words): "it lacks \(Findability.quoted(words)) in every form: results holding all the words rank above it"
            case .onlyInBody(let words):
                "\(Findability.quoted(words)) only in the text: in the title an occurrence counts 10 times as much, in the description 3 times"
            case .onlyCorrected(let words): "\(Findability.quoted(words)) matched only as a spelling correction, which counts 0.8 of a word"
            case .stuffed: "its score is halved: it looks keyword-stuffed (one word over a third of the title or a quarter of the text, or more than 30 keywords)"
            case .belowSearched(let count): "it matches, but ranks below the first \(count) results"
            }
        }
    }

    public var query: String
    public var identifier: String
    public var title: String?
    /// The item is in the index (and not expired).
    public var indexed: Bool
    /// The item matches the query.
    public var matches: Bool
    /// Its place among the results, from 1; nil when it is not among the first ``searched``.
    public var rank: Int?
    /// How many results were looked at (at most ``SearchRequest/Limits/results``).
    public var searched: Int
    /// How many items match the query (exact when ``totalIsExact``).
    public var total: Int
    public var totalIsExact: Bool
    public var words: [Word]
    public var score: Score?
    /// The results right above the item (at most five), nearest last.
    public var above: [Neighbour]
    public var findings: [Finding]
    /// Spelling corrections the search made, as in a search answer.
    public var corrections: [String: [String]]

    public init(query: String, identifier: String, title: String? = nil, indexed: Bool, matches: Bool, rank: Int? = nil, searched: Int = 0,
                total: Int = 0, totalIsExact: Bool = true, words: [Word] = [], score: Score? = nil, above: [Neighbour] = [],
                findings: [Finding] = [], corrections: [String: [String]] = [:]) {
        self.query = query
        self.identifier = identifier
        self.title = title
        self.indexed = indexed
        self.matches = matches
        self.rank = rank
        self.searched = searched
        self.total = total
        self.totalIsExact = totalIsExact
        self.words = words
        self.score = score
        self.above = above
        self.findings = findings
        self.corrections = corrections
    }

    static func quoted(_ words: [String]) -> String { words.map { "'\($0)'" }.joined(separator: ", ") }


    public var json: JSONValue {
        func rounded(_ value: Double) -> JSONValue { JSONValue((value * 10_000).rounded() / 10_000) }
        return .object(JSONObject([
            ("query", .string(query)), ("id", .string(identifier)), ("title", title.map(JSONValue.string) ?? .null),
            ("indexed", .bool(indexed)), ("matches", .bool(matches)), ("rank", rank.map { JSONValue($0) } ?? .null),
            ("searched", JSONValue(searched)), ("estimatedTotalHits", JSONValue(total)), ("totalHitsExact", .bool(totalIsExact)),
            ("words", .array(words.map { word in
                .object(JSONObject([
                    ("word", .string(word.word)), ("matched", .bool(word.matched)), ("points", rounded(word.points)),
                    ("forms", .array(word.forms.map { form in
                        .object(JSONObject([
                            ("form", .string(form.text)), ("kind", .string(form.kind.rawValue)), ("weight", rounded(form.weight)),
                            ("occurrences", .object(JSONObject(Field.allCases.compactMap { field in
                                form.occurrences[field].map { (field.rawValue, JSONValue($0)) }
                            }))),
                        ]))
                    })),
                ]))
            })),
            ("score", score.map { score in
                .object(JSONObject([
                    ("relevance", rounded(score.relevance)), ("quality", rounded(score.quality)), ("rating", rounded(score.rating)),
                    ("engagement", rounded(score.engagement)), ("freshness", rounded(score.freshness)), ("total", rounded(score.total)),
                ]))
            } ?? .null),
            ("above", .array(above.map { neighbour in
                .object(JSONObject([
                    ("rank", JSONValue(neighbour.rank)), ("id", .string(neighbour.identifier)), ("title", .string(neighbour.title)),
                    ("score", rounded(neighbour.score)),
                ]))
            })),
            ("findings", .array(findings.map(\.json))),
            ("corrections", .object(JSONObject(corrections.keys.sorted().map { ($0, .array(corrections[$0]!.map(JSONValue.string))) }))),
        ]))
    }

    /// A report read back from ``json`` (as the API sends it); nil when it is not one.
    public init?(json: JSONValue) {
        guard let query = json["query"]?.stringValue, let identifier = json["id"]?.stringValue, let indexed = json["indexed"]?.boolValue,
              let matches = json["matches"]?.boolValue else { return nil }
        self.init(query: query, identifier: identifier, title: json["title"]?.stringValue, indexed: indexed, matches: matches,
                  rank: json["rank"]?.intValue, searched: json["searched"]?.intValue ?? 0, total: json["estimatedTotalHits"]?.intValue ?? 0,
                  totalIsExact: json["totalHitsExact"]?.boolValue ?? true)
        words = (json["words"]?.arrayValue ?? []).map { word in
            Word(word: word["word"]?.stringValue ?? "", forms: (word["forms"]?.arrayValue ?? []).map { form in
                var occurrences: [Field: Int] = [:]
                for field in Field.allCases { if let count = form["occurrences"]?[field.rawValue]?.intValue { occurrences[field] = count } }
                return Form(text: form["form"]?.stringValue ?? "", kind: form["kind"]?.stringValue.flatMap(FormKind.init(rawValue:)) ?? .written,
                            occurrences: occurrences, weight: form["weight"]?.doubleValue ?? 0)
            }, points: word["points"]?.doubleValue ?? 0)
        }
        if let score = json["score"], score != .null {
            let part = { (name: String) in score[name]?.doubleValue ?? 0 }
            self.score = Score(relevance: part("relevance"), quality: part("quality"), rating: part("rating"), engagement: part("engagement"),
                               freshness: part("freshness"), total: part("total"))
        }
        above = (json["above"]?.arrayValue ?? []).map { neighbour in
            Neighbour(rank: neighbour["rank"]?.intValue ?? 0, identifier: neighbour["id"]?.stringValue ?? "",
                      title: neighbour["title"]?.stringValue ?? "", score: neighbour["score"]?.doubleValue ?? 0)
        }
        findings = (json["findings"]?.arrayValue ?? []).compactMap(Finding.init(json:))
        for (word, spellings) in json["corrections"]?.objectValue?.members ?? [] {
            corrections[word] = spellings.arrayValue?.compactMap(\.stringValue) ?? []
        }
    }
}
