import CSQLite
import Foundation
import SQLite
import Testing

@Suite struct SQLiteTests {
    /// A fresh database file in its own folder, removed with the folder afterwards.
    final class TemporaryDatabase {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sqlite-tests-\(UUID().uuidString)").path
        var path: String { folder + "/test.sqlite" }
        init() { try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(atPath: folder) }
    }

    @Test func valuesRoundTripWithTheirTypes() throws {
        let database = TemporaryDatabase()
        let connection = try SQLiteConnection(path: database.path)
        try connection.execute("CREATE TABLE t (a, b, c, d, e)")
        let text = "naïve 直播 \u{0}nul"
        try connection.statement("INSERT INTO t VALUES (?, ?, ?, ?, ?)").run([
            .integer(Int64.min), .real(-0.5), .text(text), .blob([0, 255, 0]), .null,
        ])
        try connection.statement("INSERT INTO t VALUES (?, ?, ?, ?, ?)").run([.integer(1), .null, .text(""), .blob([]), .null])
        let select = try connection.statement("SELECT a, b, c, d, e, typeof(d) FROM t ORDER BY rowid")
        #expect(try select.step())
        #expect(select.int(0) == Int(Int64.min))
        #expect(select.double(1) == -0.5)
        #expect(select.string(2) == text, "text keeps an embedded NUL: lengths are passed, not C strings")
        #expect(select.blob(3) == [0, 255, 0])
        #expect(select.isNull(4) && select.optionalInt(4) == nil && select.optionalDouble(4) == nil)
        #expect(try select.step())
        #expect(select.optionalDouble(1) == nil)
        #expect(select.string(2) == "")
        #expect(select.blob(3) == [], "an empty blob is not NULL")
        #expect(select.string(5) == "blob")
        #expect(try !select.step())
    }

    @Test func errorsKeepTheExtendedCodeTheMessageAndTheSQL() throws {
        let database = TemporaryDatabase()
        let connection = try SQLiteConnection(path: database.path)
        try connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE)")
        try connection.statement("INSERT INTO t (name) VALUES (?)").run([.text("a")])
        let duplicate = #expect(throws: SQLiteError.self) {
            try connection.statement("INSERT INTO t (name) VALUES (?)").run([.text("a")])
        }
        #expect(duplicate?.extendedCode == SQLITE_CONSTRAINT | (8 << 8), "SQLITE_CONSTRAINT_UNIQUE (a macro Swift does not import)")
        #expect(duplicate?.code == SQLITE_CONSTRAINT)
        #expect(duplicate?.message.contains("UNIQUE constraint failed: t.name") == true)
        let syntax = #expect(throws: SQLiteError.self) { try connection.prepare("SELEKT 1") }
        #expect(syntax?.code == SQLITE_ERROR)
        #expect(syntax?.sql == "SELEKT 1")
        let missing = #expect(throws: SQLiteError.self) {
            try SQLiteConnection(path: database.folder + "/absent.sqlite", mode: .readWriteExisting)
        }
        #expect(missing?.code == SQLITE_CANTOPEN)
        let notADatabase = database.folder + "/junk.sqlite"
        _ = FileManager.default.createFile(atPath: notADatabase, contents: Data(repeating: 0x41, count: 4096))
        let junk = #expect(throws: SQLiteError.self) { try SQLiteConnection(path: notADatabase).execute("SELECT * FROM sqlite_master") }
        #expect(junk?.isCorrupt == true)
    }

    @Test func aTransactionRollsBackWhenItsBodyThrows() throws {
        struct Abort: Error {}
        let database = TemporaryDatabase()
        let connection = try SQLiteConnection(path: database.path)
        try connection.execute("CREATE TABLE t (x)")
        #expect(throws: Abort.self) {
            try connection.transaction {
                try connection.statement("INSERT INTO t VALUES (1)").run()
                throw Abort()
            }
        }
        let inserted = try connection.transaction { () throws -> Int in
            try connection.statement("INSERT INTO t VALUES (2)").run()
            return connection.changes
        }
        #expect(inserted == 1)
        let count = try connection.statement("SELECT group_concat(x) FROM t")
        #expect(try count.step())
        #expect(count.string(0) == "2", "only the committed row is there")
    }

    @Test func cachedStatementsComeBackResetAndUnbound() throws {
        let database = TemporaryDatabase()
        let connection = try SQLiteConnection(path: database.path)
        let first = try connection.statement("SELECT ?")
        first.bind(1, "bound")
        #expect(try first.step())
        let again = try connection.statement("SELECT ?")
        #expect(again === first, "the same text gives the cached statement")
        #expect(try again.step())
        #expect(again.isNull(0), "its old binding was cleared")
        #expect(try connection.prepare("SELECT ?") !== first, "prepare is never cached")
    }

    /// A statement stepped to its first row holds a read transaction, and with it an old
    /// snapshot of a WAL database; finishStatements lets the connection see new commits.
    @Test func finishingStatementsReleasesAnOldSnapshot() throws {
        let database = TemporaryDatabase()
        let writer = try SQLiteConnection(path: database.path)
        try writer.execute("PRAGMA journal_mode=WAL; CREATE TABLE t (x); INSERT INTO t VALUES (1)")
        let reader = try SQLiteConnection(path: database.path, mode: .readOnly)
        func count() throws -> Int {
            let statement = try reader.statement("SELECT count(*) FROM t")
            _ = try statement.step()
            return statement.int(0)
        }
        let peek = try reader.statement("SELECT x FROM t")
        #expect(try peek.step())
        #expect(try count() == 1)
        try writer.execute("INSERT INTO t VALUES (2)")
        let shared = SerializedConnection(reader)
        // `peek` still holds the read transaction: a new statement sees the same snapshot.
        let stale = try shared.withConnection { connection, _ in
            let statement = try connection.prepare("SELECT count(*) FROM t")
            _ = try statement.step()
            return statement.int(0)
        }
        #expect(stale == 1)
        // withConnection finished the cached statements when it returned.
        #expect(try count() == 2)
    }

    @Test func aLockedDatabaseIsABusyErrorAfterTheTimeout() throws {
        let database = TemporaryDatabase()
        let first = try SQLiteConnection(path: database.path)
        try first.execute("CREATE TABLE t (x); BEGIN IMMEDIATE; INSERT INTO t VALUES (1)")
        let second = try SQLiteConnection(path: database.path, busyTimeout: 0.05)
        let busy = #expect(throws: SQLiteError.self) { try second.execute("BEGIN IMMEDIATE") }
        #expect(busy?.isBusy == true)
        try first.execute("COMMIT")
        try second.execute("BEGIN IMMEDIATE; COMMIT")
    }

    @Test func aSerializedConnectionIsUsedByOneThreadAtATime() throws {
        let database = TemporaryDatabase()
        let connection = try SQLiteConnection(path: database.path)
        try connection.execute("CREATE TABLE t (x)")
        let shared = SerializedConnection(connection)
        DispatchQueue.concurrentPerform(iterations: 8) { n in
            for k in 0..<50 {
                try? shared.withConnection { connection, _ in
                    try connection.transaction {
                        try connection.statement("INSERT INTO t VALUES (?)").run([.integer(Int64(n * 1000 + k))])
                    }
                }
            }
        }
        let total = try shared.withConnection { connection, _ in
            let statement = try connection.statement("SELECT count(DISTINCT x) FROM t")
            _ = try statement.step()
            return statement.int(0)
        }
        #expect(total == 400)
    }

    @Test func theFTS5APIFindsBuiltInTokenizers() throws {
        let database = TemporaryDatabase()
        let connection = try SQLiteConnection(path: database.path)
        let api = try FTS5API(connection)
        #expect(api.raw.pointee.iVersion >= 2)
        #expect(api.findTokenizer("unicode61") != nil)
        #expect(api.findTokenizer("no-such-tokenizer") == nil)
    }
}
