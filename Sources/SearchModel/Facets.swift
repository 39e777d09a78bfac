import JSON

/// Counts of a search's matches by a field's value (Meilisearch's and Typesense's facets),
/// for the fields a person narrows app content by: its content type and its site.
public enum Facet: String, Sendable, Hashable, CaseIterable {
    case contentType
    case domain

    /// Values counted per facet at most (the most frequent).
    public static let maximumValues = 20
    /// Facets count every match, but a query holding a phrase (quoted words, or a CJK word,
    /// searched as its characters in a row) counts its best this many matches: a phrase's
    /// postings cannot tell a match without its text (``FacetCounts/exact`` says whether that
    /// was every match).
    public static let candidates = 1000
}

/// A search's facet counts: for each facet asked, its values by count, most frequent first
/// (then by value); `exact` when they count every match, else they count the best
/// ``Facet/candidates`` (a query with a phrase; as ``SearchResponse/totalIsExact`` says of
/// the total).
public struct FacetCounts: Sendable, Hashable {
    public var counts: [Facet: [(value: String, count: Int)]]
    public var exact: Bool

    public init(counts: [Facet: [(value: String, count: Int)]] = [:], exact: Bool = true) {
        self.counts = counts
        self.exact = exact
    }

    public static func == (a: FacetCounts, b: FacetCounts) -> Bool {
        a.exact == b.exact && a.counts.keys == b.counts.keys
            && a.counts.allSatisfy { facet, values in
                let other = b.counts[facet] ?? []
                return values.count == other.count && zip(values, other).allSatisfy { $0.value == $1.value && $0.count == $1.count }
            }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(exact)
        for facet in counts.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
            hasher.combine(facet)
            for entry in counts[facet] ?? [] {
                hasher.combine(entry.value)
                hasher.combine(entry.count)
            }
        }
    }

    /// The most frequent values first, then by value; at most ``Facet/maximumValues``.
    package static func best(_ values: [(value: String, count: Int)]) -> [(value: String, count: Int)] {
        Array(values.sorted { $0.count != $1.count ? $0.count > $1.count : $0.value < $1.value }.prefix(Facet.maximumValues))
    }

    /// Several shards' counts as one index's: summed (saturating), exact only if every part was.
    public static func merged(_ parts: [FacetCounts]) -> FacetCounts {
        var sums: [Facet: [String: Int]] = [:]
        var exact = true
        for part in parts {
            exact = exact && part.exact
            for (facet, values) in part.counts {
                for entry in values {
                    let (sum, overflow) = sums[facet, default: [:]][entry.value, default: 0].addingReportingOverflow(entry.count)
                    sums[facet, default: [:]][entry.value] = overflow ? Int.max : sum
                }
                if sums[facet] == nil { sums[facet] = [:] }
            }
        }
        // A value past a shard's first 20 is not counted there: the merge is exact only if no
        // part was cut.
        let cut = parts.contains { $0.counts.values.contains { $0.count >= Facet.maximumValues } }
        return FacetCounts(counts: sums.mapValues { best($0.map { ($0.key, $0.value) }) }, exact: exact && !cut)
    }

    /// `{"contentType": {"public.image": 12, …}, …}`.
    public var json: JSONValue {
        .object(JSONObject(counts.sorted { $0.key.rawValue < $1.key.rawValue }.map { facet, values in
            (facet.rawValue, .object(JSONObject(values.map { ($0.value, JSONValue($0.count)) })))
        }))
    }

    /// Reads ``json`` back (a client's view, a router's of a shard's answer): facets it does
    /// not know, values that are not counts from 0 to 2^53, and lists past
    /// ``Facet/maximumValues`` or values over 2,048 bytes are refused.
    public init(json: JSONValue, exact: Bool) throws(SearchIndexError) {
        guard let object = json.objectValue else { throw SearchIndexError(.invalidResponse, "facets must be an object") }
        var counts: [Facet: [(value: String, count: Int)]] = [:]
        for member in object.members {
            guard let facet = Facet(rawValue: member.key), let values = member.value.objectValue, values.members.count <= Facet.maximumValues else {
                throw SearchIndexError(.invalidResponse, "facets.\(member.key.prefix(40)) is not a facet's counts")
            }
            var list: [(value: String, count: Int)] = []
            for value in values.members {
                guard let count = value.value.intValue, (0...(1 << 53)).contains(count), value.key.utf8.count <= 2048 else {
                    throw SearchIndexError(.invalidResponse, "facets.\(member.key) holds a count that is not a count")
                }
                list.append((value.key, count))
            }
            counts[facet] = Self.best(list)
        }
        self.init(counts: counts, exact: exact)
    }
}
