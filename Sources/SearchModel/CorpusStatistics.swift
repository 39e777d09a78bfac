import JSON
import TextUtilities

/// The numbers a query's plan and its BM25 scores read from an index — the live documents,
/// their tokens, the languages stemmed, and the document frequency of every term the query
/// looks up, with the completions and spelling candidates it found — so that shards can rank
/// with the statistics of the whole index rather than each with its own (which would make
/// results depend on how the items were split). A router asks every shard for them
/// (``SearchIndex/statistics(for:)``), adds them up (``merged(_:)``) and hands the sum back
/// with the search (``ShardRound/statistics``): Elasticsearch's `dfs_query_then_fetch`.
///
/// Exact for the terms every shard looks up (the query's words and their stems). A
/// completion or spelling is counted on the shards that listed it among their candidates
/// (each lists its most frequent, as a single index lists its own).
public struct CorpusStatistics: Sendable, Equatable {
    public var documents = 0
    public var tokens = 0
    /// The stemming languages of the items (``IndexWriter`` keeps them).
    public var languages: Set<String> = []
    /// Documents holding each term looked up.
    public var frequencies: [[UInt8]: Int] = [:]
    /// A prefix's completions with their document counts (search-as-you-type).
    public var completions: [[UInt8]: [[UInt8]: Int]] = [:]
    /// An unknown word's spelling candidates with their document counts.
    public var spellings: [[UInt8]: [[UInt8]: Int]] = [:]

    public init() {}

    /// What one statistics answer may hold; a larger one is refused, not truncated.
    public enum Limits {
        public static let terms = 16_384
        public static let termBytes = 1024
        public static let lists = 64
        public static let listEntries = 256
        public static let languages = 64
    }

    /// The statistics of the index the given parts make up. A candidate list keeps its
    /// ``Limits/listEntries`` most frequent entries (many shards can list more between them;
    /// a plan reads at most 50).
    public static func merged(_ parts: [CorpusStatistics]) -> CorpusStatistics {
        var sum = CorpusStatistics()
        // Each part's counts are at most 2^53 (``init(json:)``), but many parts could still
        // overflow a sum: it saturates instead of trapping.
        func add(_ a: Int, _ b: Int) -> Int {
            let (total, overflow) = a.addingReportingOverflow(b)
            return overflow ? .max : total
        }
        for part in parts {
            sum.documents = add(sum.documents, part.documents)
            sum.tokens = add(sum.tokens, part.tokens)
            sum.languages.formUnion(part.languages)
            sum.frequencies.merge(part.frequencies, uniquingKeysWith: add)
            for (prefix, found) in part.completions { sum.completions[prefix, default: [:]].merge(found, uniquingKeysWith: add) }
            for (word, found) in part.spellings { sum.spellings[word, default: [:]].merge(found, uniquingKeysWith: add) }
        }
        func trimmed(_ lists: [[UInt8]: [[UInt8]: Int]]) -> [[UInt8]: [[UInt8]: Int]] {
            lists.mapValues { found in
                found.count <= Limits.listEntries ? found
                    : Dictionary(best(found, limit: Limits.listEntries).map { ($0.term, $0.documents) }, uniquingKeysWith: +)
            }
        }
        sum.completions = trimmed(sum.completions)
        sum.spellings = trimmed(sum.spellings)
        return sum
    }

    /// The `limit` most frequent entries of a candidate list, ties by byte order.
    package static func best(_ found: [[UInt8]: Int], limit: Int) -> [(term: [UInt8], documents: Int)] {
        let entries: [(term: [UInt8], documents: Int)] = found.map { (term: $0.key, documents: $0.value) }
        let sorted = entries.sorted { a, b in a.documents != b.documents ? a.documents > b.documents : a.term.lexicographicallyPrecedes(b.term) }
        return Array(sorted.prefix(limit))
    }

    // MARK: JSON (terms as hex: a stem's marker byte and any token survive exactly)

    public var json: JSONValue {
        func counts(_ map: [[UInt8]: Int]) -> JSONValue {
            .object(JSONObject(map.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map { (Hex.string($0.key), JSONValue($0.value)) }))
        }
        func lists(_ map: [[UInt8]: [[UInt8]: Int]]) -> JSONValue {
            .object(JSONObject(map.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map { (Hex.string($0.key), counts($0.value)) }))
        }
        return .object(JSONObject([
            ("documents", JSONValue(documents)), ("tokens", JSONValue(tokens)), ("languages", .array(languages.sorted().map(JSONValue.string))),
            ("terms", counts(frequencies)), ("completions", lists(completions)), ("spellings", lists(spellings)),
        ]))
    }

    /// Reads what ``json`` writes, checking every count and size: it comes over the network.
    public init(json: JSONValue) throws(SearchIndexError) {
        func bad(_ what: String) -> SearchIndexError { .invalidQuery("statistics: \(what)") }
        func count(_ value: JSONValue?, _ name: String) throws(SearchIndexError) -> Int {
            guard case .number(let literal)? = value, let number = Int(literal), (0...(1 << 53)).contains(number) else {
                throw bad("\(name) must be a whole number from 0")
            }
            return number
        }
        func term(_ text: String) throws(SearchIndexError) -> [UInt8] {
            guard text.utf8.count <= 2 * Limits.termBytes, let bytes = Hex.bytes(text), !bytes.isEmpty else { throw bad("a term is not hex or too long") }
            return bytes
        }
        func counts(_ value: JSONValue?, limit: Int) throws(SearchIndexError) -> [[UInt8]: Int] {
            guard let object = value?.objectValue, object.count <= limit else { throw bad("a term list is missing or longer than \(limit)") }
            var map: [[UInt8]: Int] = [:]
            for (key, value) in object.members { map[try term(key)] = try count(value, "a document count") }
            return map
        }
        func lists(_ value: JSONValue?) throws(SearchIndexError) -> [[UInt8]: [[UInt8]: Int]] {
            guard let object = value?.objectValue, object.count <= Limits.lists else { throw bad("candidate lists are missing or more than \(Limits.lists)") }
            var map: [[UInt8]: [[UInt8]: Int]] = [:]
            for (key, value) in object.members { map[try term(key)] = try counts(value, limit: Limits.listEntries) }
            return map
        }
        documents = try count(json["documents"], "documents")
        tokens = try count(json["tokens"], "tokens")
        guard let names = json["languages"]?.arrayValue, names.count <= Limits.languages else { throw bad("languages must be a list") }
        for name in names {
            guard let code = name.stringValue, code.utf8.count <= 16 else { throw bad("a language is not a short string") }
            languages.insert(code)
        }
        frequencies = try counts(json["terms"], limit: Limits.terms)
        completions = try lists(json["completions"])
        spellings = try lists(json["spellings"])
    }
}
