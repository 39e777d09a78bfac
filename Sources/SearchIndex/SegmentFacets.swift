import Dispatch
import SQLite
import SearchModel
import Synchronization

/// Each facet's values over one segment's ordinals, made once: a segment's documents never
/// change, nor an item's content type or site (a changed item is a new row). A segment
/// that holds filter terms (``SegmentFile/holdsFilterTerms``) gives them from its own
/// postings — the content type and domain terms (``FilterTerms``), each term's documents
/// its value's — so a faceted search's first use reads a segment's few value lists, not
/// every row of `items`; an older segment's are read from its rows in `items`.
///
/// The values that at least 1/64 of the segment's documents share keep a bit per ordinal
/// (at most 64 of them: 8 bytes a document at most), counted a word at a time; every
/// document keeps its value's number (4 bytes a document), for counting the others and for
/// looking up one document's value. Numbers are the index file's (``FacetNames``). Kept for
/// one index file's segments (its ``IndexReader``); a merged-away segment's go with the next
/// faceted search.
final class SegmentFacets: Sendable {

    struct Values: Sendable {
        /// A frequent value's number and its ordinals' bits.
        var frequent: [(number: UInt32, bits: [UInt64])] = []
        /// The ordinals of every other value, as bits.
        var others: [UInt64] = []
        /// Each ordinal's value number (`0`: none).
        var numbers: [UInt32] = []
    }

    private struct Key: Hashable {
        var facet: Facet
        var segment: Int64
    }

    let names = FacetNames()
    private let entries = Mutex<[Key: Values]>([:])

    /// The values of `facet` over `segment`'s ordinals.
    func values(_ facet: Facet, segment: SegmentReader, connection: SQLiteConnection) throws -> Values {
        let key = Key(facet: facet, segment: segment.info.id)
        if let known = entries.withLock({ $0[key] }) { return known }
        let made = segment.file.holdsFilterTerms
            ? Self.values(facet, fromTermsOf: segment, names: names)
            : Self.values(try Self.numbers(facet, fromRowsOf: segment, names: names, connection: connection))
        entries.withLock { $0[key] = made }
        return made
    }

    /// The values of each of `facets` over each of `segments`, by segment id. The segments
    /// not seen before that hold filter terms have their postings asked for together first
    /// (``SegmentReader/prefetch(_:)``), so that a first faceted search reads them side by
    /// side rather than a page at a time, and their values made side by side, one segment a
    /// core (they read only the segments' mapped files).
    func values(_ facets: [Facet], segments: [SegmentReader], connection: SQLiteConnection) throws -> [[Int64: Values]] {
        let known = entries.withLock { entries in Set(entries.keys) }
        let missing = facets.flatMap { facet in
            segments.filter { !known.contains(Key(facet: facet, segment: $0.info.id)) && $0.file.holdsFilterTerms }.map { (facet, $0) }
        }
        for (facet, segment) in missing {
            segment.terms(startingWith: [FilterTerms.marker, facet.termKind.rawValue]) { segment.prefetch($0) }
        }
        DispatchQueue.concurrentPerform(iterations: missing.count) { index in
            let (facet, segment) = missing[index]
            let made = Self.values(facet, fromTermsOf: segment, names: names)
            entries.withLock { $0[Key(facet: facet, segment: segment.info.id)] = made }
        }
        return try facets.map { facet in
            var bySegment: [Int64: Values] = [:]
            for segment in segments { bySegment[segment.info.id] = try values(facet, segment: segment, connection: connection) }
            return bySegment
        }
    }

    /// The segment's values from its terms of the facet, in one walk of their postings: a
    /// value's documents are its term's, and its term's document count says whether it is
    /// frequent (the rule of ``values(_:)``, which at most 64 values can meet).
    static func values(_ facet: Facet, fromTermsOf segment: SegmentReader, names: FacetNames) -> Values {
        let prefix = [FilterTerms.marker, facet.termKind.rawValue]
        var terms: [SegmentReader.Term] = []
        var strings: [String] = []
        segment.terms(startingWith: prefix) { term in
            let bytes = segment.term(at: term.index).dropFirst(prefix.count)
            terms.append(term)
            strings.append(facet == .domain ? String(decoding: bytes.reversed(), as: UTF8.self) : String(decoding: bytes, as: UTF8.self))
        }
        let numbered = names.numbers(facet, of: strings)
        let count = segment.documentCount
        let least = max(64, count / 64)
        var documents: [UInt32: Int] = [:]
        for (term, number) in zip(terms, numbered) where number != 0 { documents[number, default: 0] += term.documents }
        let frequent = documents.filter { $0.value >= least }.sorted { $0.value > $1.value }.prefix(64).map(\.key).sorted()
        let slots = Dictionary(uniqueKeysWithValues: frequent.enumerated().map { ($1, $0) })
        let words = count / 64 + 1
        var numbers = [UInt32](repeating: 0, count: count)
        // The frequent values' bits one after another, then the others'.
        var bits = [UInt64](repeating: 0, count: words * (frequent.count + 1))
        numbers.withUnsafeMutableBufferPointer { numbers in
            bits.withUnsafeMutableBufferPointer { bits in
                for (term, number) in zip(terms, numbered) where number != 0 {
                    let row = (slots[number] ?? frequent.count) * words
                    TermPostings(file: segment.file, range: term.postings, blocks: term.blocks, documents: term.documents)
                        .forEachOrdinal(documentLimit: count) { ordinal in
                            guard ordinal < count else { return }
                            numbers[ordinal] = number
                            bits[row + (ordinal >> 6)] |= UInt64(1) << UInt64(ordinal & 63)
                        }
                }
            }
        }
        var values = Values()
        values.numbers = numbers
        values.frequent = frequent.enumerated().map { slot, number in (number, Array(bits[slot * words..<(slot + 1) * words])) }
        values.others = Array(bits[frequent.count * words..<(frequent.count + 1) * words])
        return values
    }

    /// Each ordinal's number from the facet's column of the segment's rows in `items`, for a
    /// segment written before segments held filter terms.
    static func numbers(_ facet: Facet, fromRowsOf segment: SegmentReader, names: FacetNames, connection: SQLiteConnection) throws -> [UInt32] {
        let rowids = segment.rowids
        guard let first = rowids.first, let last = rowids.last else { return [] }
        let statement = try connection.statement(
            "SELECT rowid, \(facet.column) FROM items WHERE rowid BETWEEN ? AND ? AND \(facet.column) IS NOT NULL ORDER BY rowid")
        defer { statement.reset() }
        statement.bind([.integer(first), .integer(last)])
        var seen: [String: Int32] = [:]
        var values: [String] = []
        var found = [Int32](repeating: -1, count: rowids.count)
        var ordinal = 0
        while try statement.step() {
            let rowid = statement.int64(0)
            while ordinal < rowids.count, rowids[ordinal] < rowid { ordinal += 1 }
            guard ordinal < rowids.count, rowids[ordinal] == rowid, let value = statement.string(1) else { continue }
            if let index = seen[value] {
                found[ordinal] = index
            } else {
                found[ordinal] = Int32(values.count)
                seen[value] = Int32(values.count)
                values.append(value)
            }
        }
        let numbered = names.numbers(facet, of: values)
        return found.map { $0 < 0 ? 0 : numbered[Int($0)] }
    }

    /// The values of a segment whose ordinals have `numbers`: counted, and then each
    /// document's bit set in its frequent value's bits or in the others', by arrays indexed
    /// by number (no hashing per document).
    static func values(_ numbers: [UInt32]) -> Values {
        var values = Values()
        values.numbers = numbers
        let top = Int(numbers.max() ?? 0)
        var counts = [Int32](repeating: 0, count: top + 1)
        counts.withUnsafeMutableBufferPointer { counts in
            for number in numbers { counts[Int(number)] &+= 1 }
        }
        let least = max(64, numbers.count / 64)
        let frequent = (0...top).filter { $0 != 0 && counts[$0] >= least }.sorted { counts[$0] > counts[$1] }.prefix(64).sorted()
        var slots = [Int8](repeating: -1, count: top + 1)
        for (slot, number) in frequent.enumerated() { slots[number] = Int8(slot) }
        let words = numbers.count / 64 + 1
        // The frequent values' bits one after another, then the others'.
        var bits = [UInt64](repeating: 0, count: words * (frequent.count + 1))
        bits.withUnsafeMutableBufferPointer { bits in
            slots.withUnsafeBufferPointer { slots in
                for (ordinal, number) in numbers.enumerated() where number != 0 {
                    let slot = slots[Int(number)]
                    let row = slot < 0 ? frequent.count : Int(slot)
                    bits[row * words + (ordinal >> 6)] |= UInt64(1) << UInt64(ordinal & 63)
                }
            }
        }
        values.frequent = frequent.enumerated().map { slot, number in (UInt32(number), Array(bits[slot * words..<(slot + 1) * words])) }
        values.others = Array(bits[frequent.count * words..<(frequent.count + 1) * words])
        return values
    }

    /// Forgets the segments not in `current` (merged away).
    func keep(segments current: Set<Int64>) {
        entries.withLock { entries in
            guard entries.keys.contains(where: { !current.contains($0.segment) }) else { return }
            entries = entries.filter { current.contains($0.key.segment) }
        }
    }
}

extension Facet {
    /// The facet's column of `items`.
    var column: String {
        switch self {
        case .contentType: "content_type"
        case .domain: "domain"
        }
    }

    /// The kind of the segments' filter terms that hold the facet's values (a domain's
    /// reversed).
    var termKind: FilterTerms.Kind {
        switch self {
        case .contentType: .contentType
        case .domain: .domain
        }
    }
}
