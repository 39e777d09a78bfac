import Foundation
import Items
import SQLite
import Testing
import TextUtilities

@testable import SearchIndex

/// Bit-packed blocks (``PostingBlock``) give back exactly what was packed, at every width,
/// and refuse damaged bytes instead of reading past them; an index whose segments are of an
/// older layout has them rebuilt from its items when opened.
@Suite struct PostingBlockTests {
    static func roundTrip(_ ordinals: [UInt32], _ frequencies: [UInt32]) -> (ordinals: [Int32], frequencies: [UInt32])? {
        let buffer = ByteBuffer()
        ordinals.withUnsafeBufferPointer { o in
            frequencies.withUnsafeBufferPointer { f in
                PostingBlock.encode(ordinals: o.baseAddress!, frequencies: f.baseAddress!, count: o.count, into: buffer)
            }
        }
        let bytes = Array(buffer.bytes) + [UInt8](repeating: 0, count: PostingBlock.padding)
        var decodedOrdinals = [Int32](repeating: -1, count: SegmentLayout.blockSize)
        var decodedFrequencies = [UInt32](repeating: 0, count: SegmentLayout.blockSize)
        let count = bytes.withUnsafeBufferPointer { b in
            PostingBlock.decode(b.baseAddress!, 0, end: b.count - PostingBlock.padding, limit: Int(UInt32.max) + 1,
                                ordinals: &decodedOrdinals, frequencies: &decodedFrequencies)
        }
        guard count > 0 else { return nil }
        return (Array(decodedOrdinals[..<count]), Array(decodedFrequencies[..<count]))
    }

    @Test func everyWidthAndCountComesBackExactly() {
        var generator = SplitMix64(seed: 17)
        for count in [1, 2, 7, 8, 9, 63, 127, 128] {
            for gapBits in [0, 1, 3, 8, 13, 20, 24, 31] {
                for frequencyBits in [0, 1, 4, 11, 17, 32] {
                    var ordinals: [UInt32] = []
                    var next: UInt64 = UInt64.random(in: 0...1000, using: &generator)
                    for _ in 0..<count where next <= UInt64(UInt32.max) {
                        ordinals.append(UInt32(next))
                        next += 1 + (gapBits == 0 ? 0 : UInt64.random(in: 0...((1 << UInt64(gapBits)) - 1), using: &generator))
                    }
                    guard ordinals.count == count else { continue }
                    let frequencies = (0..<count).map { _ in
                        frequencyBits == 0 ? UInt32(1) : UInt32(UInt64.random(in: 1...((UInt64(1) << UInt64(frequencyBits)) - 1), using: &generator))
                    }
                    let found = Self.roundTrip(ordinals, frequencies)
                    #expect(found?.ordinals == ordinals.map { Int32(bitPattern: $0) }, "\(count) \(gapBits) \(frequencyBits)")
                    #expect(found?.frequencies == frequencies, "\(count) \(gapBits) \(frequencyBits)")
                }
            }
        }
    }

    @Test func damagedBlocksDecodeToNothing() {
        let buffer = ByteBuffer()
        let ordinals: [UInt32] = [3, 9, 40, 41]
        let frequencies: [UInt32] = [1, 12, 2, 1]
        ordinals.withUnsafeBufferPointer { o in
            frequencies.withUnsafeBufferPointer { PostingBlock.encode(ordinals: o.baseAddress!, frequencies: $0.baseAddress!, count: 4, into: buffer) }
        }
        let good = Array(buffer.bytes)
        var out = [Int32](repeating: 0, count: 128)
        var outFrequencies = [UInt32](repeating: 0, count: 128)
        func decode(_ bytes: [UInt8], end: Int? = nil, limit: Int = 1000) -> Int {
            let padded = bytes + [UInt8](repeating: 0, count: PostingBlock.padding)
            return padded.withUnsafeBufferPointer { PostingBlock.decode($0.baseAddress!, 0, end: end ?? bytes.count, limit: limit, ordinals: &out, frequencies: &outFrequencies) }
        }
        #expect(decode(good) == 4)
        #expect(decode(good, limit: 41) == 0, "an ordinal past the segment's documents")
        #expect(decode(good, end: good.count - 1) == 0, "a block longer than its room")
        var wide = good
        wide[5] = 40
        #expect(decode(wide) == 0, "a width over 32 bits")
        var longer = good
        longer[4] = 100
        #expect(decode(longer) == 0, "more postings than the bytes hold")
        #expect(decode(Array(good.prefix(3))) == 0, "a header cut short")
    }

    @Test func segmentsOfAnOlderLayoutAreRebuiltWhenTheIndexIsOpened() throws {
        let t = try TemporaryIndex()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        try t.index.upsert(RetrievalTests.corpus(300, seed: 2), now: now)
        let before = try t.index.search(SearchRequest("w1 w7", limit: 20, now: now)).hits.map(\.item.uniqueIdentifier)
        // Claim format 4 (segments in `segment_chunks` rows of the file, no segment files)
        // and take the files away: a rebuild must not read them.
        let path = t.directory.appendingPathComponent("index.sqlite").path
        let raw = try SQLiteConnection(path: path)
        try raw.execute("""
            UPDATE meta SET value = '4' WHERE key = 'segment_format';
            CREATE TABLE segment_chunks(id INTEGER PRIMARY KEY, data BLOB NOT NULL); INSERT INTO segment_chunks VALUES(1, zeroblob(4000));
            """)
        try FileManager.default.removeItem(atPath: SegmentFile.directory(forIndex: path))
        let reopened = try SearchIndex(path: path)
        #expect(try reopened.search(SearchRequest("w1 w7", limit: 20, now: now)).hits.map(\.item.uniqueIdentifier) == before)
        let format = try raw.prepare("SELECT value FROM meta WHERE key = 'segment_format'")
        #expect(try format.step() && format.string(0) == String(SegmentLayout.version))
        let old = try raw.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'segment_chunks'")
        #expect(try old.step() && old.int(0) == 0, "the old chunks are dropped")
    }
}
