import Items
import SQLite

/// The segments' tables in `index.sqlite`, owned with the rest of its schema by
/// ``IndexSchema``: `segments` (one row per segment, ``SegmentInfo``) and `segment_chunks`
/// (the segment's bytes, ``SegmentWriter/chunkBytes`` per row, keyed by
/// `segment × 2²⁴ + chunk` as the rowid so that one B-tree lookup finds a chunk and a chunk
/// fits in one page, never in overflow pages). Written in the same transactions as the
/// items they index, so a commit is one state and readers never see half a segment.
enum SegmentStore {
    static let schema = """
        CREATE TABLE IF NOT EXISTS segments(
            id INTEGER PRIMARY KEY AUTOINCREMENT, level INTEGER NOT NULL, documents INTEGER NOT NULL, terms INTEGER NOT NULL,
            documents_offset INTEGER NOT NULL, dictionary_offset INTEGER NOT NULL, length INTEGER NOT NULL,
            average_length REAL NOT NULL, min_rowid INTEGER NOT NULL, max_rowid INTEGER NOT NULL, deleted INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE IF NOT EXISTS segment_chunks(id INTEGER PRIMARY KEY, data BLOB NOT NULL);
        """

    /// The rowid of a segment's chunk.
    static func chunkID(_ segment: Int64, _ chunk: Int) -> Int64 { segment << 24 | Int64(chunk) }

    /// Level 0 holds segments of fewer than 128 documents, each level up eight times more
    /// (128–1,023, 1,024–8,191…): eight segments of a level merged hold at least the least
    /// of the next, so a merge's output is not merged again at its inputs' level.
    static func level(documents: Int) -> Int {
        var level = 0
        var size = 128
        while documents >= size, level < 12 {
            level += 1
            size *= 8
        }
        return level
    }

    static func list(_ connection: SQLiteConnection) throws -> [SegmentInfo] {
        let statement = try connection.statement("""
            SELECT id, level, documents, terms, documents_offset, dictionary_offset, length, average_length, min_rowid, max_rowid, deleted
            FROM segments ORDER BY documents DESC, id
            """)
        var segments: [SegmentInfo] = []
        while try statement.step() {
            segments.append(SegmentInfo(
                id: Int64(statement.int(0)), level: statement.int(1), documents: statement.int(2), terms: statement.int(3),
                documentsOffset: statement.int(4), dictionaryOffset: statement.int(5), length: statement.int(6),
                averageLength: statement.double(7), minimumRowid: Int64(statement.int(8)), maximumRowid: Int64(statement.int(9)),
                deleted: statement.int(10)))
        }
        return segments
    }

    /// Writes a segment: `write` receives the function that stores each chunk and returns
    /// the layout's offsets.
    @discardableResult
    static func create(
        _ connection: SQLiteConnection, documents: Int, averageLength: Double, rowids: ClosedRange<Int64>,
        write: (_ emit: @escaping (Int, [UInt8]) throws -> Void) throws -> (documentsOffset: Int, dictionaryOffset: Int, length: Int, terms: Int)
    ) throws -> Int64 {
        try connection.statement("""
            INSERT INTO segments(level, documents, terms, documents_offset, dictionary_offset, length, average_length, min_rowid, max_rowid)
            VALUES(?, ?, 0, 0, 0, 0, ?, ?, ?)
            """).run([.integer(Int64(level(documents: documents))), .integer(Int64(documents)), .real(averageLength),
                      .integer(rowids.lowerBound), .integer(rowids.upperBound)])
        let id = connection.lastInsertRowID
        let insert = try connection.statement("INSERT INTO segment_chunks(id, data) VALUES(?, ?)")
        let layout = try write { chunk, bytes in
            guard chunk < 1 << 24 else { throw SQLiteError(code: 13, message: "segment \(id) is too large") }
            try insert.run([.integer(chunkID(id, chunk)), .blob(bytes)])
        }
        try connection.statement("UPDATE segments SET terms = ?, documents_offset = ?, dictionary_offset = ?, length = ? WHERE id = ?")
            .run([.integer(Int64(layout.terms)), .integer(Int64(layout.documentsOffset)), .integer(Int64(layout.dictionaryOffset)),
                  .integer(Int64(layout.length)), .integer(id)])
        return id
    }

    /// Counts the removal of items `rowids` against the segments that hold their postings
    /// (found by rowid range, and where ranges of merged segments overlap, by the segment's
    /// own rowids), so that a segment mostly of deleted documents is merged away
    /// (``SegmentMerger/pick(_:)``).
    static func recordDeletions(_ rowids: [Int64], _ connection: SQLiteConnection) throws {
        guard !rowids.isEmpty else { return }
        let segments = try list(connection)
        var counts: [Int64: Int] = [:]
        var held: [Int64: [Int64]] = [:]
        for rowid in rowids {
            let around = segments.filter { $0.minimumRowid <= rowid && rowid <= $0.maximumRowid }
            if around.count == 1 {
                counts[around[0].id, default: 0] += 1
                continue
            }
            for segment in around {
                if held[segment.id] == nil { held[segment.id] = try rowidsOf(segment, connection) }
                let list = held[segment.id]!
                var low = 0
                var high = list.count
                while low < high {
                    let middle = (low + high) / 2
                    if list[middle] < rowid { low = middle + 1 } else { high = middle }
                }
                if low < list.count, list[low] == rowid {
                    counts[segment.id, default: 0] += 1
                    break
                }
            }
        }
        let update = try connection.statement("UPDATE segments SET deleted = min(documents, deleted + ?) WHERE id = ?")
        for (id, count) in counts { try update.run([.integer(Int64(count)), .integer(id)]) }
    }

    /// A segment's rowids, from the head of its documents.
    private static func rowidsOf(_ segment: SegmentInfo, _ connection: SQLiteConnection) throws -> [Int64] {
        let bytes = try read(connection, segment: segment.id, range: segment.documentsOffset..<(segment.documentsOffset + segment.documents * 8))
        return bytes.withUnsafeBytes { raw in (0..<segment.documents).map { Int64(bitPattern: raw.loadUnaligned(fromByteOffset: $0 * 8, as: UInt64.self).littleEndian) } }
    }

    static func delete(_ connection: SQLiteConnection, segments: [Int64]) throws {
        for id in segments {
            try connection.statement("DELETE FROM segment_chunks WHERE id BETWEEN ? AND ?").run([.integer(chunkID(id, 0)), .integer(chunkID(id, (1 << 24) - 1))])
            try connection.statement("DELETE FROM segments WHERE id = ?").run([.integer(id)])
        }
    }

    /// Reads one segment's bytes front to back, each chunk once: for a merge, which wants
    /// every term's postings in order.
    struct SequentialReader {
        let connection: SQLiteConnection
        let segment: Int64
        private var chunk = -1
        private var data: [UInt8] = []

        init(connection: SQLiteConnection, segment: Int64) {
            self.connection = connection
            self.segment = segment
        }

        /// The bytes `range`, into `bytes` (replacing what it held, its storage reused);
        /// ranges must come in increasing order.
        mutating func read(_ range: Range<Int>, into bytes: inout [UInt8]) throws {
            let size = SegmentWriter.chunkBytes
            bytes.removeAll(keepingCapacity: true)
            var position = range.lowerBound
            while position < range.upperBound {
                let index = position / size
                if index != chunk {
                    let statement = try connection.statement("SELECT data FROM segment_chunks WHERE id = ?")
                    statement.bind(1, SegmentStore.chunkID(segment, index))
                    guard try statement.step(), let found = statement.blob(0) else {
                        throw SQLiteError(code: 11, message: "segment \(segment) is missing chunk \(index)")
                    }
                    chunk = index
                    data = found
                }
                let lower = position - index * size
                let upper = min(range.upperBound - index * size, data.count)
                guard lower < upper else { throw SQLiteError(code: 11, message: "segment \(segment): chunk \(index) is short") }
                bytes.append(contentsOf: data[lower..<upper])
                position = index * size + upper
            }
        }
    }

    /// The bytes `range` of a segment, read from its chunks.
    static func read(_ connection: SQLiteConnection, segment: Int64, range: Range<Int>) throws -> [UInt8] {
        guard !range.isEmpty else { return [] }
        let size = SegmentWriter.chunkBytes
        let statement = try connection.statement("SELECT id, data FROM segment_chunks WHERE id BETWEEN ? AND ?")
        statement.bind([.integer(chunkID(segment, range.lowerBound / size)), .integer(chunkID(segment, (range.upperBound - 1) / size))])
        var bytes = [UInt8](repeating: 0, count: range.count)
        var filled = 0
        try bytes.withUnsafeMutableBytes { output in
            while try statement.step() {
                let chunkStart = (statement.int(0) & ((1 << 24) - 1)) * size
                statement.withBlob(1) { data in
                    let lower = max(range.lowerBound, chunkStart) - chunkStart
                    let upper = min(range.upperBound, chunkStart + data.count) - chunkStart
                    guard lower < upper, let source = data.baseAddress else { return }
                    (output.baseAddress! + (chunkStart + lower - range.lowerBound)).copyMemory(from: source + lower, byteCount: upper - lower)
                    filled += upper - lower
                }
            }
        }
        guard filled == range.count else {
            throw SQLiteError(code: 11, message: "segment \(segment) is missing bytes \(range) (found \(filled))")
        }
        return bytes
    }
}
