import Items
import JSON
import SearchModel
import TextUtilities

/// The JSON of a router's relevance-feedback rounds (``RoutedFeedback``), written by one side
/// and read by the other: terms and words as hex (a stem's marker byte and any token survive
/// exactly), order keys as 16 hex digits (a JSON number holds 53 bits), scores and counts as
/// numbers written in full. Whatever comes over the network is checked against ``Limits``.
public enum ShardFeedback {
    public enum Limits {
        /// Words a statistics round may ask about. Each is counted in all its forms (the word
        /// and a stem or two per language), and an answer holds at most
        /// ``CorpusStatistics/Limits/terms`` counts; the expansion reads past the first few
        /// dozen only when most of them are in half the index.
        public static let words = 2048
        /// Distinct words one reading may hold (a body of 32 KB holds a few thousand).
        public static let wordsPerReading = 16_384
    }

    // MARK: the search round's `feedback` field

    public static func json(_ feedback: RoutedFeedback) -> JSONValue {
        switch feedback {
        case .firstStage: .string("first")
        case .rescore(let terms, let depth):
            .object(JSONObject([("depth", JSONValue(depth)),
                                ("terms", .array(terms.map { .array([.string(Hex.string($0.token)), JSONValue($0.weight)]) }))]))
        }
    }

    public static func feedback(_ value: JSONValue) throws -> RoutedFeedback {
        if value.stringValue == "first" { return .firstStage }
        guard let depth = value["depth"]?.intValue, let list = value["terms"]?.arrayValue, list.count <= RelevanceFeedback.terms else {
            throw APIError.invalidQuery("feedback must be \"first\" or {depth, terms}")
        }
        let terms = try list.map { entry throws -> RelevanceFeedback.Term in
            guard let pair = entry.arrayValue, pair.count == 2, let token = pair[0].stringValue.flatMap(term), let weight = pair[1].doubleValue else {
                throw APIError.invalidQuery("a feedback term must be [hex, weight]")
            }
            return RelevanceFeedback.Term(token: token, weight: weight)
        }
        do { try RoutedFeedback.validate(terms: terms, depth: depth) } catch { throw APIError.invalidQuery(error.description) }
        return .rescore(terms: terms, depth: depth)
    }

    // MARK: the search answer's `firstStage`

    public static func json(_ firstStage: [FirstStageCandidate]) -> JSONValue {
        .array(firstStage.map { .array([JSONValue($0.score), .string(key($0.key))]) })
    }

    /// A shard's first-stage list; nil when it is not one (the shard then counts as missing).
    public static func firstStage(_ value: JSONValue) -> [FirstStageCandidate]? {
        guard let list = value.arrayValue, list.count <= RelevanceFeedback.depth else { return nil }
        var read: [FirstStageCandidate] = []
        for entry in list {
            guard let pair = entry.arrayValue, pair.count == 2, let score = pair[0].doubleValue, score.isFinite,
                let key = pair[1].stringValue.flatMap(orderKey)
            else { return nil }
            read.append(FirstStageCandidate(score: score, key: key))
        }
        return read
    }

    // MARK: the statistics round's `words`

    public static func json(words: [[UInt8]]) -> JSONValue { .array(words.map { .string(Hex.string($0)) }) }

    public static func words(_ value: JSONValue) throws -> [[UInt8]] {
        guard let list = value.arrayValue, list.count <= Limits.words else { throw APIError.invalidQuery("words: at most \(Limits.words)") }
        return try list.map { entry throws -> [UInt8] in
            guard let word = entry.stringValue.flatMap(term) else { throw APIError.invalidQuery("a word must be 1 to \(CorpusStatistics.Limits.termBytes) bytes in hex") }
            return word
        }
    }

    // MARK: the feedback round's answer (`POST /v1/shard/feedback`)

    public static func json(readings: [RelevanceFeedback.Reading], excluded: Set<[UInt8]>) -> JSONValue {
        .object(JSONObject([
            ("readings", .array(readings.map { reading in
                .object(JSONObject([
                    ("score", JSONValue(reading.score)), ("key", .string(key(reading.key))), ("length", JSONValue(reading.length)),
                    ("words", .array(reading.words.map { .array([.string(Hex.string($0.form)), .string(Hex.string($0.stemClass)), JSONValue($0.count)]) })),
                ]))
            })),
            ("excluded", .array(excluded.sorted { $0.lexicographicallyPrecedes($1) }.map { .string(Hex.string($0)) })),
        ]))
    }

    /// A shard's readings and its request's own classes; nil when the answer breaks a rule.
    public static func readings(_ value: JSONValue) -> (readings: [RelevanceFeedback.Reading], excluded: Set<[UInt8]>)? {
        guard let list = value["readings"]?.arrayValue, list.count <= RelevanceFeedback.documents,
            let classes = value["excluded"]?.arrayValue, classes.count <= CorpusStatistics.Limits.terms
        else { return nil }
        var readings: [RelevanceFeedback.Reading] = []
        for entry in list {
            guard let score = entry["score"]?.doubleValue, score.isFinite, let key = entry["key"]?.stringValue.flatMap(orderKey),
                let length = entry["length"]?.doubleValue, length.isFinite, length >= 0,
                let words = entry["words"]?.arrayValue, words.count <= Limits.wordsPerReading
            else { return nil }
            var read: [RelevanceFeedback.Reading.Word] = []
            read.reserveCapacity(words.count)
            for word in words {
                guard let triple = word.arrayValue, triple.count == 3, let form = triple[0].stringValue.flatMap(term),
                    let stemClass = triple[1].stringValue.flatMap(term), let count = triple[2].doubleValue, count.isFinite, count > 0
                else { return nil }
                read.append(RelevanceFeedback.Reading.Word(form: form, stemClass: stemClass, count: count))
            }
            readings.append(RelevanceFeedback.Reading(score: score, key: key, length: length, words: read))
        }
        var excluded = Set<[UInt8]>()
        for entry in classes {
            guard let word = entry.stringValue.flatMap(term) else { return nil }
            excluded.insert(word)
        }
        return (readings, excluded)
    }

    // MARK: pieces

    private static func term(_ text: String) -> [UInt8]? {
        guard text.utf8.count <= 2 * CorpusStatistics.Limits.termBytes, let bytes = Hex.bytes(text), !bytes.isEmpty else { return nil }
        return bytes
    }

    private static func key(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    private static func orderKey(_ text: String) -> UInt64? {
        guard text.utf8.count == 16 else { return nil }
        return UInt64(text, radix: 16)
    }
}
