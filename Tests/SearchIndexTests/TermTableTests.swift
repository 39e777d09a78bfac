import Items
import Testing

@testable import SearchIndex

/// The term table a segment's postings are collected in: one id per distinct term however
/// often it comes and however much the table grows, and terms listed in byte order — the
/// order a segment's dictionary is written and binary-searched in.
struct TermTableTests {
    /// Terms that share long prefixes, differ only past the 8-byte sort key, contain zero
    /// bytes, are prefixes of each other, or are empty.
    static let terms: [[UInt8]] = {
        var terms: [[UInt8]] = [[], [0], [0, 0], [0, 1], [1], Array("a".utf8), Array("ab".utf8), [0x61, 0x62, 0]]
        for word in ["abcdefgh", "abcdefghi", "abcdefgh\u{0}", "abcdefgg", "abcdefgz", "zzzzzzzzzz", "zzzzzzzzz", "é", "e", "東京", "東"] {
            terms.append(Array(word.utf8))
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let shared = Array("internationalisation".utf8).prefix(Int.random(in: 0...12, using: &generator))
            terms.append(Array(shared) + (0..<Int.random(in: 0...6, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        }
        return terms
    }()

    @Test func eachTermHasOneIdAcrossGrowth() {
        let table = TermTable(capacity: 16)
        var ids: [[UInt8]: Int32] = [:]
        for term in Self.terms {
            let id = term.withUnsafeBytes { table.id($0) }
            if let earlier = ids[term] { #expect(earlier == id) } else { ids[term] = id }
        }
        #expect(table.count == ids.count)
        for (term, id) in ids {
            #expect(term.withUnsafeBytes { table.id($0) } == id, "still found after the table grew")
            #expect(table.withBytes(id) { Array($0) } == term)
        }
    }

    @Test func termsAreListedInByteOrder() {
        let table = TermTable(capacity: 16)
        for term in Self.terms { _ = term.withUnsafeBytes { table.id($0) } }
        let listed = table.sortedIDs().map { id in table.withBytes(id) { Array($0) } }
        let expected = Set(Self.terms).sorted { $0.lexicographicallyPrecedes($1) }
        #expect(listed == expected)
    }
}
