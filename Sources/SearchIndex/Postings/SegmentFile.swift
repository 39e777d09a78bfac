import Glibc
import SQLite
import Synchronization

/// One segment's bytes (``SegmentLayout``) in a file of its own, `<index>-segments/<id>.seg`
/// beside the index file, mapped read-only: a search reads postings, documents and the
/// dictionary straight from the page cache, as Lucene and Tantivy read their segment files:
/// its first search reads only what it needs, asked for ahead where it knows it (``Access``),
/// and the memory it takes is the kernel's to reclaim, not a cache of copies this process
/// bounds.
///
/// The file: a 64-byte header (``magic``, the segment's id, the payload's length, flags: bit
/// 1 ``holdsFilterTerms``; files written before the flags have zeros there, and bit 0 marks
/// the first filter terms, whose marker byte was the stems' and cannot be told from them), the
/// payload, and ``trailerBytes`` zeros, so that a block at the payload's end can be unpacked
/// eight bytes at a time (``PostingBlock/padding``). Segments never change once written.
final class SegmentFile: @unchecked Sendable {
    // @unchecked: the mapping is made in init and unmapped in deinit; in between it is only
    // read, from any thread.
    /// The payload: the segment's layout, with ``trailerBytes`` readable zeros after it.
    let payload: UnsafeRawBufferPointer
    /// Whether every document's filter terms (``FilterTerms``) are among the segment's terms.
    let holdsFilterTerms: Bool
    private let mapping: UnsafeMutableRawPointer
    private let mappedBytes: Int

    static let magic: UInt64 = 0x3154_4E45_4D47_4553 // "SEGMENT1", little-endian
    static let headerBytes = 64
    static let filterTermsFlag: UInt64 = 2
    static let trailerBytes = 64

    static func directory(forIndex path: String) -> String { path + "-segments" }

    static func path(forIndex path: String, segment: Int64) -> String { directory(forIndex: path) + "/\(segment).seg" }

    /// How the mapping will be read, told to the kernel (`madvise`).
    enum Access {
        /// A search's: a few pages here and there. Without advice, a fault reads
        /// `read_ahead_kb` around the page — 8 MB on some disks, 60 times what a search
        /// touches — so the mapping is advised random and what a search will read is asked
        /// for ahead, in ranges (``willNeed(_:)``).
        case search
        /// A merge's or a scan's: front to back.
        case sequential
    }

    /// Maps segment `info` of the index at `indexPath`; throws when the file is missing or
    /// is not that segment's (another segment's, or cut short).
    init(indexPath: String, info: SegmentInfo, access: Access = .search) throws(SQLiteError) {
        let path = Self.path(forIndex: indexPath, segment: info.id)
        // A damaged row's length is refused before any arithmetic on it.
        guard info.length >= 0, info.length <= Int(Int32.max) * 64 else { throw SQLiteError(code: 11, message: "segment \(info.id): length \(info.length)") }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw SQLiteError(code: 14, message: "segment \(info.id): cannot open \(path): errno \(errno)") }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw SQLiteError(code: 14, message: "segment \(info.id): cannot read \(path)") }
        let expected = Self.headerBytes + info.length + Self.trailerBytes
        guard Int(status.st_size) == expected else {
            throw SQLiteError(code: 11, message: "segment \(info.id): \(path) has \(status.st_size) bytes, not \(expected)")
        }
        guard let mapped = mmap(nil, expected, PROT_READ, MAP_SHARED, descriptor, 0), mapped != MAP_FAILED else {
            throw SQLiteError(code: 14, message: "segment \(info.id): cannot map \(path): errno \(errno)")
        }
        mapping = mapped
        mappedBytes = expected
        asked = Mutex([UInt64](repeating: 0, count: access == .search ? (expected / Self.pageBytes + 64) / 64 : 0))
        _ = madvise(mapped, expected, access == .search ? MADV_RANDOM : MADV_SEQUENTIAL)
        let header = UnsafeRawPointer(mapped)
        guard UInt64(littleEndian: header.loadUnaligned(as: UInt64.self)) == Self.magic,
              Int64(littleEndian: header.loadUnaligned(fromByteOffset: 8, as: Int64.self)) == info.id,
              Int64(littleEndian: header.loadUnaligned(fromByteOffset: 16, as: Int64.self)) == Int64(info.length)
        else {
            munmap(mapped, expected)
            throw SQLiteError(code: 11, message: "segment \(info.id): \(path) is not this segment's file")
        }
        payload = UnsafeRawBufferPointer(start: header + Self.headerBytes, count: info.length)
        holdsFilterTerms = UInt64(littleEndian: header.loadUnaligned(fromByteOffset: 24, as: UInt64.self)) & Self.filterTermsFlag != 0
    }

    deinit { munmap(mapping, mappedBytes) }

    private static let pageBytes = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// Asks the kernel to read `range` of the payload ahead (`MADV_WILLNEED`): the reads are
    /// queued at once and run side by side, where faults one page at a time would wait for
    /// each other. Returns at once.
    func willNeed(_ range: Range<Int>) {
        let range = range.clamped(to: 0..<payload.count)
        guard !range.isEmpty else { return }
        let start = (Self.headerBytes + range.lowerBound) / Self.pageBytes * Self.pageBytes
        let end = min(mappedBytes, Self.headerBytes + range.upperBound)
        _ = madvise(mapping + start, end - start, MADV_WILLNEED)
    }

    /// Pages already asked for by ``willNeedOnce(_:)``, a bit each (a search mapping's only:
    /// 16 KB for a file of 512 MB).
    private let asked: Mutex<[UInt64]>

    /// ``willNeed(_:)`` for the page holding `offset` of the payload, unless this mapping
    /// asked for it before: a search asks for a few pages of its candidates' columns, and on
    /// a warm page cache the call would cost more than the read.
    func willNeedOnce(_ offset: Int) {
        guard offset >= 0, offset < payload.count else { return }
        let page = (Self.headerBytes + offset) / Self.pageBytes
        let first = asked.withLock { bits in
            let word = page / 64, bit = UInt64(1) << UInt64(page % 64)
            guard word < bits.count, bits[word] & bit == 0 else { return false }
            bits[word] |= bit
            return true
        }
        if first { _ = madvise(mapping + page * Self.pageBytes, Self.pageBytes, MADV_WILLNEED) }
    }

    /// Writes one segment's file, its payload appended in pieces, under a temporary name;
    /// ``finish(length:holdsFilterTerms:)`` makes it whole and durable (the header last, then `fdatasync`),
    /// renames it into place and syncs the directory, before the transaction that adds the
    /// segment's row commits. Renamed, never truncated in place: a file of the same name that
    /// another process still maps (an index made anew at the same path) keeps its bytes.
    final class Writer {
        private let descriptor: Int32
        private let path: String
        private let directory: String
        private let segment: Int64
        private var length = 0
        private var closed = false

        init(indexPath: String, segment: Int64) throws(SQLiteError) {
            directory = SegmentFile.directory(forIndex: indexPath)
            if mkdir(directory, 0o755) != 0, errno != EEXIST {
                throw SQLiteError(code: 14, message: "cannot make \(directory): errno \(errno)")
            }
            let path = SegmentFile.path(forIndex: indexPath, segment: segment) + ".tmp"
            let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw SQLiteError(code: 14, message: "cannot create \(path): errno \(errno)") }
            // The header's place, filled by `finish`.
            let header = [UInt8](repeating: 0, count: SegmentFile.headerBytes)
            do throws(SQLiteError) { try Self.write(descriptor, header, path) } catch {
                close(descriptor)
                throw error
            }
            self.descriptor = descriptor
            self.path = path
            self.segment = segment
        }

        deinit { if !closed { close(descriptor) } }

        func append(_ bytes: [UInt8]) throws(SQLiteError) {
            try Self.write(descriptor, bytes, path)
            length += bytes.count
        }

        /// The trailer and the header written, the file and its directory entry synced;
        /// throws when the payload written is not `length` bytes.
        func finish(length expected: Int, holdsFilterTerms: Bool) throws(SQLiteError) {
            guard expected == length else { throw SQLiteError(code: 11, message: "segment \(segment): wrote \(length) bytes, not \(expected)") }
            let trailer = [UInt8](repeating: 0, count: SegmentFile.trailerBytes)
            try Self.write(descriptor, trailer, path)
            var header = [UInt8](repeating: 0, count: 32)
            withUnsafeBytes(of: SegmentFile.magic.littleEndian) { header.replaceSubrange(0..<8, with: $0) }
            withUnsafeBytes(of: segment.littleEndian) { header.replaceSubrange(8..<16, with: $0) }
            withUnsafeBytes(of: Int64(length).littleEndian) { header.replaceSubrange(16..<24, with: $0) }
            withUnsafeBytes(of: (holdsFilterTerms ? SegmentFile.filterTermsFlag : 0).littleEndian) { header.replaceSubrange(24..<32, with: $0) }
            let wrote = header.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
            guard wrote == header.count, fdatasync(descriptor) == 0 else { throw SQLiteError(code: 10, message: "cannot write \(path): errno \(errno)") }
            close(descriptor)
            closed = true
            guard rename(path, String(path.dropLast(4))) == 0 else { throw SQLiteError(code: 10, message: "cannot rename \(path): errno \(errno)") }
            let folder = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if folder >= 0 {
                fsync(folder)
                close(folder)
            }
        }

        private static func write(_ descriptor: Int32, _ bytes: [UInt8], _ path: String) throws(SQLiteError) {
            let failed = bytes.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let wrote = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                    if wrote < 0, errno == EINTR { continue }
                    guard wrote > 0 else { return true }
                    offset += wrote
                }
                return false
            }
            if failed { throw SQLiteError(code: 10, message: "cannot write \(path): errno \(errno)") }
        }
    }

    /// The segment ids of the files in the index's segment folder; with `unfinished`, of the
    /// files a writer left half-written (`ID.seg.tmp`).
    static func stored(forIndex path: String, unfinished: Bool = false) -> [Int64] {
        guard let folder = opendir(directory(forIndex: path)) else { return [] }
        defer { closedir(folder) }
        let suffix = unfinished ? ".seg.tmp" : ".seg"
        var ids: [Int64] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.hasSuffix(suffix), let id = Int64(name.dropLast(suffix.count)) else { continue }
            ids.append(id)
        }
        return ids
    }

    static func remove(forIndex path: String, segment: Int64, unfinished: Bool = false) {
        unlink(Self.path(forIndex: path, segment: segment) + (unfinished ? ".tmp" : ""))
    }
}
