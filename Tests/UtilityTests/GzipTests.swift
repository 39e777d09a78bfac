import Gzip
import Testing

@Suite struct GzipTests {
    let text = Array(String(repeating: "Searchlight reads sitemaps and WARC records. ", count: 2000).utf8)

    @Test func compressedBytesComeBack() throws {
        let packed = Gzip.compress(text)
        #expect(Gzip.isCompressed(packed) && !Gzip.isCompressed(text))
        #expect(packed.count < text.count / 10)
        #expect(try Gzip.decompress(packed, limit: text.count) == text)
        #expect(try Gzip.decompress(Gzip.compress([]), limit: 10).isEmpty)
    }

    /// RFC 1952 §2.2: a file may hold several members, read one after another; padding
    /// zeros after the last are ignored.
    @Test func severalMembersAndTrailingZeros() throws {
        let two = Gzip.compress(Array("first ".utf8)) + Gzip.compress(Array("second".utf8)) + [0, 0, 0]
        #expect(try Gzip.decompress(two, limit: 100) == Array("first second".utf8))
    }

    /// A bomb is cut at the limit with an error, never inflated whole.
    @Test func theLimitHoldsAndDamageIsAnError() throws {
        let bomb = Gzip.compress([UInt8](repeating: 0, count: 8 << 20))
        #expect(throws: Gzip.Error.self) { try Gzip.decompress(bomb, limit: 1 << 20) }
        #expect(throws: Gzip.Error.self) { try Gzip.decompress([0x1F, 0x8B, 0x08, 0x00, 0xDE, 0xAD], limit: 100) }
        #expect(throws: Gzip.Error.self) { try Gzip.decompress(Array("not gzip".utf8), limit: 100) }
    }

    /// A cut file gives what came before the cut and says it is incomplete.
    @Test func aTruncatedStreamGivesItsPrefix() throws {
        let packed = Gzip.compress(text)
        let cut = try Gzip.decompressPrefix(Array(packed.prefix(packed.count / 2)), limit: text.count)
        #expect(!cut.complete)
        #expect(!cut.bytes.isEmpty && text.starts(with: cut.bytes))
        let whole = try Gzip.decompressPrefix(packed, limit: text.count)
        #expect(whole.complete && whole.bytes == text)
        #expect(throws: Gzip.Error.self) { try Gzip.decompress(Array(packed.prefix(packed.count / 2)), limit: text.count) }
    }
}
