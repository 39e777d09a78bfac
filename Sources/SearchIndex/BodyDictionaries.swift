import CZstd
import SQLite
import Synchronization

/// The body dictionaries a process has read of one index file, digested for decompression
/// (``IndexReader`` keeps one per file): a dictionary never changes once written, so it is
/// read and digested once. Decompression contexts are pooled (at most ``pooledContexts``),
/// as making one allocates about 100 KB.
final class BodyDictionaries: Sendable {
    /// A digested dictionary. `@unchecked Sendable`: a `ZSTD_DDict` is only read after it is
    /// made, and zstd reads one from several threads at once; freed with its last reference.
    final class Digested: @unchecked Sendable {
        let handle: OpaquePointer

        init?(_ bytes: [UInt8]) {
            guard let handle = bytes.withUnsafeBytes({ ZSTD_createDDict($0.baseAddress, $0.count) }) else { return nil }
            self.handle = handle
        }

        deinit { ZSTD_freeDDict(handle) }
    }

    /// A decompression context. `@unchecked Sendable`: used by one thread at a time, taken
    /// from and given back to the pool under its lock.
    private final class Context: @unchecked Sendable {
        let handle: OpaquePointer

        init?() {
            guard let handle = ZSTD_createDCtx() else { return nil }
            self.handle = handle
        }

        deinit { ZSTD_freeDCtx(handle) }
    }

    static let pooledContexts = 4
    private let digested = Mutex<[Int64: Digested]>([:])
    private let contexts = Mutex<[Context]>([])

    /// Dictionary `id`, read through `connection` the first time; nil when the file has none
    /// of that id (a damaged body names one that never was).
    func dictionary(_ id: Int64, connection: SQLiteConnection) -> Digested? {
        if let known = digested.withLock({ $0[id] }) { return known }
        guard let bytes = try? BodyDictionary.bytes(id: id, connection), let made = Digested(bytes) else { return nil }
        return digested.withLock { table in
            if let known = table[id] { return known }
            table[id] = made
            return made
        }
    }

    /// Decompresses `source` (a zstd frame made with `dictionary`) into `output`; the bytes
    /// written, or nil when the frame is damaged or does not fit.
    func decompress(_ source: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, dictionary: Digested) -> Int? {
        guard let context = contexts.withLock({ $0.popLast() }) ?? Context() else { return nil }
        defer { contexts.withLock { if $0.count < Self.pooledContexts { $0.append(context) } } }
        let produced = ZSTD_decompress_usingDDict(context.handle, output.baseAddress, output.count, source.baseAddress, source.count,
                                                  dictionary.handle)
        return ZSTD_isError(produced) == 0 ? produced : nil
    }
}
