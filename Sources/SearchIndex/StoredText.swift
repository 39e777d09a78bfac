import CLibDeflate
import CZstd
import Items
import SQLite

/// How an item's body is kept in `item_bodies`: compressed, as a blob that starts with a
/// format byte and the text's length — it is read only for snippets and phrase checks, and
/// was two thirds of an index's bytes stored as text. A body too short to gain is kept as
/// text, as bodies written before compression were.
///
///     [1][length of the text, u32 little-endian][raw DEFLATE stream (libdeflate)]
///     [2][length of the text, u32 little-endian][dictionary id, u32 little-endian][zstd frame]
///
/// Format 2 is zstd with the index's newest dictionary (``BodyDictionary``), once it has one;
/// the bodies written before it keep theirs.
enum StoredText {
    static let deflated: UInt8 = 1
    static let dictionaryCompressed: UInt8 = 2
    static let headerBytes = 5
    static let dictionaryHeaderBytes = 9
    /// Bodies shorter than this are kept as text: a compressed stream's overhead eats the gain.
    static let minimumBytes = 128
    /// The longest text a stored body may claim: more is damaged data, not a body (bodies
    /// are capped far below this on the way in).
    static let maximumBytes = 1 << 22
    /// libdeflate's level (1–12). Level 1 compresses 1.75× faster than 4 for a 1 % larger
    /// body on real pages' text (trafilatura's set: 2.43× against 2.46×), and a crawl
    /// compresses every page's body on its write path.
    static let level: Int32 = 1
    /// zstd's level with a dictionary: 3 (its default) compresses the benchmark's bodies
    /// faster than DEFLATE level 1 alone and 29 % smaller; 1 gains only 15 %.
    static let dictionaryLevel: Int32 = 3

    /// Compresses bodies for one write; one owner, not shared between threads.
    final class Compressor {
        private let handle: OpaquePointer
        private var scratch = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 8)
        private var scratchBytes = 1
        /// The index's dictionary and what zstd compresses with it, once ``load(_:)`` found one.
        private var dictionary: (id: UInt32, digested: OpaquePointer, context: OpaquePointer)?
        private var loaded = false

        init() {
            guard let handle = libdeflate_alloc_compressor(StoredText.level) else { fatalError("libdeflate: out of memory for a compressor") }
            self.handle = handle
        }

        deinit {
            libdeflate_free_compressor(handle)
            if let dictionary {
                ZSTD_freeCDict(dictionary.digested)
                ZSTD_freeCCtx(dictionary.context)
            }
            scratch.deallocate()
        }

        /// Reads the index's newest dictionary, once: bodies compressed after it use it.
        func load(_ connection: SQLiteConnection) throws {
            guard !loaded else { return }
            loaded = true
            guard let (id, bytes) = try BodyDictionary.current(connection), let id32 = UInt32(exactly: id) else { return }
            guard let digested = bytes.withUnsafeBytes({ ZSTD_createCDict($0.baseAddress, $0.count, StoredText.dictionaryLevel) }) else { return }
            guard let context = ZSTD_createCCtx() else {
                ZSTD_freeCDict(digested)
                return
            }
            dictionary = (id32, digested, context)
        }

        private func reserve(_ bytes: Int) {
            guard bytes > scratchBytes else { return }
            scratch.deallocate()
            scratchBytes = bytes
            scratch = .allocate(byteCount: bytes, alignment: 8)
        }

        /// The value to store for `text`: a compressed blob, or the text itself when that is
        /// no larger.
        func value(_ text: String) -> SQLiteValue {
            var text = text
            return text.withUTF8 { input -> SQLiteValue in
                guard input.count >= StoredText.minimumBytes, input.count <= StoredText.maximumBytes else { return .text(String(decoding: input, as: UTF8.self)) }
                if let dictionary {
                    let header = StoredText.dictionaryHeaderBytes
                    let bound = header + ZSTD_compressBound(input.count)
                    reserve(bound)
                    let produced = ZSTD_compress_usingCDict(dictionary.context, scratch + header, bound - header, input.baseAddress, input.count,
                                                            dictionary.digested)
                    guard ZSTD_isError(produced) == 0, produced + header < input.count else { return .text(String(decoding: input, as: UTF8.self)) }
                    scratch.storeBytes(of: StoredText.dictionaryCompressed, as: UInt8.self)
                    (scratch + 1).storeBytes(of: UInt32(input.count).littleEndian, toByteOffset: 0, as: UInt32.self)
                    (scratch + 5).storeBytes(of: dictionary.id.littleEndian, toByteOffset: 0, as: UInt32.self)
                    return .blob(Array(UnsafeRawBufferPointer(start: scratch, count: produced + header)))
                }
                let bound = StoredText.headerBytes + libdeflate_deflate_compress_bound(handle, input.count)
                reserve(bound)
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
    /// compressed one decompressed (a dictionary's read through `connection` the first time
    /// `dictionaries` meets it); empty when the bytes are damaged.
    static func text(_ statement: SQLiteStatement, _ column: Int32, dictionaries: BodyDictionaries, connection: SQLiteConnection) -> String {
        guard statement.isBlob(column) else { return statement.string(column) ?? "" }
        return statement.withBlob(column) { blob -> String in
            guard blob.count > headerBytes, let base = blob.baseAddress else { return "" }
            let length = Int(UInt32(littleEndian: (base + 1).loadUnaligned(as: UInt32.self)))
            guard length <= maximumBytes else { return "" }
            switch blob[0] {
            case deflated:
                guard let decompressor = libdeflate_alloc_decompressor() else { return "" }
                defer { libdeflate_free_decompressor(decompressor) }
                return String(unsafeUninitializedCapacity: max(1, length)) { output in
                    var produced = 0
                    let result = libdeflate_deflate_decompress(decompressor, base + headerBytes, blob.count - headerBytes, output.baseAddress, length,
                                                               &produced)
                    return result == LIBDEFLATE_SUCCESS && produced == length ? length : 0
                }
            case dictionaryCompressed:
                guard blob.count > dictionaryHeaderBytes else { return "" }
                let id = Int64(UInt32(littleEndian: (base + 5).loadUnaligned(as: UInt32.self)))
                guard let dictionary = dictionaries.dictionary(id, connection: connection) else { return "" }
                return String(unsafeUninitializedCapacity: max(1, length)) { output in
                    let produced = dictionaries.decompress(UnsafeRawBufferPointer(rebasing: blob[dictionaryHeaderBytes...]),
                                                           into: UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(output)[..<length]),
                                                           dictionary: dictionary)
                    return produced == length ? length : 0
                }
            default:
                return ""
            }
        }
    }
}
