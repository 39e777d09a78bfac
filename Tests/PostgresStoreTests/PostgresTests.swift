import Foundation
import Postgres
import SearchlightTestSupport
import Testing

/// The libpq wrapper against a real server.
@Suite struct PostgresTests {
    func database() throws -> String { try PostgresCluster.shared.get().newDatabase() }

    @Test func parametersAndResultsRoundTrip() throws {
        let connection = try PostgresConnection(url: try database())
        try connection.execute("CREATE TABLE t(a text, b bigint, c double precision, d boolean, e bytea, f text[])")
        let text = "naïve 直播 \"quoted\" \\slash"
        try connection.execute("INSERT INTO t VALUES($1, $2, $3, $4, $5, $6::text[])", [
            .text(text), .int(Int64.min), .double(-0.1), .bool(true), .bytes([0, 255, 10]), .array([text, nil, "", "a,b", "\\\"\\", "end\\"]),
        ])
        try connection.execute("INSERT INTO t VALUES($1, $2, $3, $4, $5, $6)", [.null, .null, .null, .null, .bytes([]), .null])
        let rows = try connection.execute("SELECT a, b, c, d, e, f[1], f[2] IS NULL, f[3], f[4], array_length(f, 1), f[5], f[6] FROM t ORDER BY b NULLS LAST").rows
        #expect(rows[0].string(0) == text)
        #expect(rows[0].int64(1) == Int64.min)
        #expect(rows[0].double(2) == -0.1)
        #expect(rows[0].bool(3) == true)
        #expect(rows[0].bytes(4) == [0, 255, 10])
        #expect(rows[0].string(5) == text, "array elements are quoted and escaped")
        #expect(rows[0].bool(6) == true)
        #expect(rows[0].string(7) == "")
        #expect(rows[0].string(8) == "a,b")
        #expect(rows[0].int(9) == 6)
        #expect(rows[0].string(10) == "\\\"\\" && rows[0].string(11) == "end\\", "escapes next to each other and at the end")
        #expect(rows[1].isNull(0) && rows[1].isNull(1))
        #expect(rows[1].bytes(4) == [], "an empty bytea is not NULL")
        let nul = try connection.execute("SELECT $1::text", [.text("a\u{0}b")]).first?.string(0)
        #expect(nul == "a\u{FFFD}b", "PostgreSQL text cannot hold NUL")
        let nulInArray = try connection.execute("SELECT ($1::text[])[1]", [.array(["a\u{0}b\u{0}"])]).first?.string(0)
        #expect(nulInArray == "a\u{FFFD}b\u{FFFD}", "nor an array element")
        let fromBytes = try connection.execute("SELECT ($1::text[])[1], ($1::text[])[2] IS NULL, ($1::text[])[3]",
                                               [.array(utf8: [Array("{\"q\": \"直播\\\\\"}".utf8), nil, []])]).first
        #expect(fromBytes?.string(0) == "{\"q\": \"直播\\\\\"}" && fromBytes?.bool(1) == true && fromBytes?.string(2) == "")
    }

    @Test func errorsCarryTheirSQLState() throws {
        let connection = try PostgresConnection(url: try database())
        try connection.execute("CREATE TABLE t(id integer PRIMARY KEY)")
        try connection.execute("INSERT INTO t VALUES(1)")
        let duplicate = #expect(throws: PostgresError.self) { try connection.execute("INSERT INTO t VALUES(1)") }
        #expect(duplicate?.sqlState == "23505")
        #expect(duplicate?.kind == .statement)
        let syntax = #expect(throws: PostgresError.self) { try connection.execute("SELEKT 1") }
        #expect(syntax?.sqlState == "42601")
        #expect(connection.isOpen, "a failed statement leaves the connection usable")
        let bad = #expect(throws: PostgresError.self) { try PostgresConnection(url: "mysql://nope") }
        #expect(bad?.kind == .invalidURL)
        let refused = #expect(throws: PostgresError.self) { try PostgresConnection(url: "postgres://nobody@127.0.0.1:1/x?connect_timeout=2") }
        #expect(refused?.isConnectionLoss == true)
    }

    @Test func aTransactionRollsBackWhenItsBodyThrows() throws {
        struct Abort: Error {}
        let connection = try PostgresConnection(url: try database())
        try connection.execute("CREATE TABLE t(x integer)")
        #expect(throws: Abort.self) {
            try connection.transaction {
                try connection.execute("INSERT INTO t VALUES(1)")
                throw Abort()
            }
        }
        try connection.transaction { try connection.execute("INSERT INTO t VALUES(2)") }
        #expect(try connection.execute("SELECT string_agg(x::text, ',') FROM t").first?.string(0) == "2")
    }

    @Test func aSessionCarriesOnAfterTheServerRestarts() throws {
        let cluster = try PostgresCluster.own()
        let session = try PostgresSession(url: try cluster.newDatabase(), retryWindow: 30)
        try session.run { try $0.execute("CREATE TABLE t(x integer)") }
        try cluster.restart()
        try session.transaction { try $0.execute("INSERT INTO t VALUES(1)") }
        #expect(try session.run { try $0.execute("SELECT count(*) FROM t").first?.int(0) } == 1)
        #expect(session.reconnections >= 1)
    }
}
