import CLibDeflate
import Items
import SQLite

/// How an item's body is kept in `item_bodies`: compressed with raw DEFLATE (libdeflate),
/// as a blob that starts with a format byte and the text's length — it is read only for
/// snippets and phrase checks, and was two thirds of an index's bytes stored as text. A body
/// too short to gain is kept as text, as bodies written before this format were.
///
///     [1][length of the text, u32 little-endian][raw DEFLATE stream]
enum StoredText {
    static let deflated: UInt8 = 1
    static let headerBytes = 5
    /// Bodies shorter than this are kept as text: a deflate stream's overhead eats the gain.
    static let minimumBytes = 128
    /// The longest text a stored body may claim: more is damaged data, not a body (bodies
    /// are capped far below this on the way in).
    static let maximumBytes = 1 << 22
    /// libdeflate's level (1–12). Level 1 compresses 1.75× faster than 4 for a 1 % larger
    /// body on real pages' text (trafilatura's set: 2.43× against 2.46×), and a crawl
    /// compresses every page's body on its write path.
    static let level: Int32 = 1

    /// Compresses bodies for one write; one owner, not shared between threads.
    final class Compressor {
        private let handle: OpaquePointer
        private var scratch = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 8)
        private var scratchBytes = 1

        init() {
            guard let handle = libdeflate_alloc_compressor(StoredText.level) else { fatalError("libdeflate: out of memory for a compressor") }
            self.handle = handle
        }

        deinit {
            libdeflate_free_compressor(handle)
            scratch.deallocate()
        }

        /// The value to store for `text`: a compressed blob, or the text itself when that is
        /// no larger.
        func value(_ text: String) -> SQLiteValue {
            var text = text
            return text.withUTF8 { input -> SQLiteValue in
                guard input.count >= StoredText.minimumBytes, input.count <= StoredText.maximumBytes else { return .text(String(decoding: input, as: UTF8.self)) }
                let bound = StoredText.headerBytes + libdeflate_deflate_compress_bound(handle, input.count)
                if bound > scratchBytes {
                    scratch.deallocate()
                    scratchBytes = bound
                    scratch = .allocate(byteCount: bound, alignment: 8)
                }
                let produced = libdeflate_deflate_compress(handle, input.baseAddress, input.count, scratch + StoredText.headerBytes,
                                                           bound - StoredText.headerBytes)
                guard produced > 0, produced + StoredText.headerBytes < input.count else { return .text(String(decoding: input, as: UTF8.self)) }
                scratch.storeBytes(of: StoredText.deflated, as: UInt8.self)
                (scratch + 1).storeBytes(of: UInt32(input.count).littleEndian, toByteOffset: 0, as: UInt32.self)
                return .blob(Array(UnsafeRawBufferPointer(start: scratch, count: produced + StoredText.headerBytes)))
            }
        }
    }

    /// The text of column `column` of the statement's row: a body stored as text as it is, a
    /// compressed one decompressed; empty when the bytes are damaged.
    static func text(_ statement: SQLiteStatement, _ column: Int32) -> String {
        guard statement.isBlob(column) else { return statement.string(column) ?? "" }
        return statement.withBlob(column) { blob -> String in
            guard blob.count > headerBytes, blob[0] == deflated, let base = blob.baseAddress else { return "" }
            let length = Int(UInt32(littleEndian: (base + 1).loadUnaligned(as: UInt32.self)))
            guard length <= maximumBytes, let decompressor = libdeflate_alloc_decompressor() else { return "" }
            defer { libdeflate_free_decompressor(decompressor) }
            return String(unsafeUninitializedCapacity: max(1, length)) { output in
                var produced = 0
                let result = libdeflate_deflate_decompress(decompressor, base + headerBytes, blob.count - headerBytes, output.baseAddress, length,
                                                           &produced)
                return result == LIBDEFLATE_SUCCESS && produced == length ? length : 0
            }
        }
    }
}
