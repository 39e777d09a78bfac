import DemoWeb
import Foundation
import JSON
import SearchlightTestSupport
import SQLite
import Testing

/// `ingest` given an app database made to hurt it, and the records of one owner asked
/// for by another (issue 24): every run ends with 0, 1 or 64 and bounded memory, and a
/// tenant never reads what the operator ingested.
@Suite(.serialized) struct HostileStoreTests {
    /// The demo HR store and mapping in a fresh folder.
    struct HR {
        let folder: TemporaryDirectory
        var store: String { folder.path + "/HR.sqlite" }
        var data: String { folder.path + "/data" }
        func ingest(_ extra: [String] = [], mapping: String = DemoApps.hrMapping.path) -> [String] {
            ["ingest", store, "--mapping", mapping, "--model", DemoApps.hrModel.path, "--data", data, "--json"] + extra
        }

        init() throws {
            folder = try TemporaryDirectory("hostile-store")
            try DemoApps.makeHRStore(at: store)
        }
    }

    /// Runs `searchlight arguments…` under GNU time; its peak resident set in MB too.
    func measured(_ arguments: [String], in folder: TemporaryDirectory) throws -> (result: CommandResult, megabytes: Double) {
        let report = folder.path + "/rss.txt"
        let result = try CommandRunner.run(["-f", "%M", "-o", report, CommandRunner.executable.path] + arguments, timeout: 120,
                                           binary: URL(fileURLWithPath: "/usr/bin/time"))
        let kilobytes = Double((try? String(contentsOfFile: report, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? -1
        return (result, kilobytes / 1024)
    }

    @Test func aJoinTableOfDuplicatesAndHugeValuesIsReadWithinBounds() throws {
        let hr = try HR()
        defer { hr.folder.remove() }
        try SQLiteConnection(path: hr.store).execute("""
            DROP TABLE Z_2PROJECTS;
            CREATE TABLE Z_2PROJECTS (Z_2MEMBERS INTEGER, Z_4PROJECTS INTEGER);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000) INSERT INTO Z_2PROJECTS SELECT 1, 1 FROM n;
            INSERT INTO Z_2PROJECTS VALUES (2, 2);
            UPDATE ZPROJECT SET ZTITLE = (SELECT group_concat('x', '') FROM (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000) SELECT i FROM n)) WHERE Z_PK = 1;
            """)
        let (result, megabytes) = try measured(hr.ingest(), in: hr.folder)
        #expect(result.status == 0, "\(result.stderr.prefix(500))")
        #expect(megabytes > 0 && megabytes < 300, "peak RSS \(megabytes) MB")
        let search = try CommandRunner.run(["search", "marian", "--data", hr.data, "--json"])
        let keywords = try JSONParser.parse(search.stdout)["results"]?.arrayValue?.first
        #expect(keywords != nil, "Marian's item was written: \(search.stdout.prefix(300))")
    }

    @Test func aFIFOIsNotADatabase() throws {
        let hr = try HR()
        defer { hr.folder.remove() }
        let fifo = hr.folder.path + "/pipe.sqlite"
        #expect(mkfifo(fifo, 0o600) == 0)
        let result = try CommandRunner.run(["ingest", fifo, "--mapping", DemoApps.hrMapping.path, "--data", hr.data], timeout: 30)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("not a regular file"))
    }

    @Test func aKeyPathThatFansOutWithoutEndIsAMappingError() throws {
        let hr = try HR()
        defer { hr.folder.remove() }
        let path = (0..<8).map { _ in "company.employees" }.joined(separator: ".") + ".firstName"
        let mapping = hr.folder.path + "/deep.json"
        try #"{"source": "hr", "mappings": [{"entity": "Employee", "uniqueIdentifierPattern": "e_{#employeeID#}", "titlePattern": "{#\#(path)#}"}]}"#
            .write(toFile: mapping, atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(hr.ingest(mapping: mapping), timeout: 30)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("{#\(path)#}") && result.stderr.contains("(Employee)"), "names the mapping and the path: \(result.stderr)")
    }

    /// The operator's ingested records stay the operator's; `ingest --owner` makes them a
    /// tenant's, who then reads only what the mapping maps.
    @Test func aTenantReadsOnlyTheRecordsIngestedForIt() throws {
        let hr = try HR()
        defer { hr.folder.remove() }
        #expect(try CommandRunner.run(hr.ingest()).status == 0)
        func key(_ owner: String, _ domain: String) throws -> String {
            try CommandRunner.run(["keys", "create", "--owner", owner, "--domain", domain, "--data", hr.data]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let tenant = try key("intruder", "intruder.example")
        let serve = try CommandRunner.start(["serve", "--data", hr.data, "--listen", "127.0.0.1:0", "--cache-seconds", "0"])
        defer { serve.stop() }
        let base = try #require(serve.firstLine.split(separator: " ").last.map(String.init))
        let client = APIClient(base: base)
        // The names to ask for are not in public answers any more.
        let hit = try #require(client.call("GET", "/v1/search?q=marian").json?["results"]?.arrayValue?.first)
        #expect(hit["source"] == "pushed")
        // A tenant naming the operator's record in its own item gets its reference back, never the record.
        let pushed = client.call("POST", "/v1/batches/probe", json: [
            "items": [["uniqueIdentifier": "probe", "title": "Probe", "domainIdentifier": "example.intruder",
                       "source": ["name": "hr", "entity": "Employee", "key": "1"]]],
            "expectedClientState": .null, "clientState": "1"], key: tenant)
        #expect(pushed.status == 200, "\(pushed.text)")
        let probe = client.call("GET", "/v1/items/probe/source", key: tenant)
        #expect(probe.status == 200)
        #expect(probe.json?["source"]?["key"] == "1")
        #expect(probe.json?["record"] == nil, "nothing of the operator's record: \(probe.text)")
        #expect(client.call("GET", "/v1/items/employee_Marian_Paul/source", key: tenant).status == 404)
        serve.stop()

        // Ingested for a tenant: its key resolves its records, through the mapping only.
        let owned = try HR()
        defer { owned.folder.remove() }
        let ingested = try CommandRunner.run(owned.ingest(["--owner", "hr-app"]))
        #expect(ingested.status == 0, "\(ingested.stderr)")
        let hrKey = try CommandRunner.run(["keys", "create", "--owner", "hr-app", "--domain", "hr.example", "--data", owned.data]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let other = try CommandRunner.run(["keys", "create", "--owner", "other", "--domain", "other.example", "--data", owned.data]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let second = try CommandRunner.start(["serve", "--data", owned.data, "--listen", "127.0.0.1:0", "--cache-seconds", "0"])
        defer { second.stop() }
        let ownedClient = APIClient(base: try #require(second.firstLine.split(separator: " ").last.map(String.init)))
        let record = ownedClient.call("GET", "/v1/items/employee_Marian_Paul/source", key: hrKey)
        #expect(record.status == 200, "\(record.text)")
        let attributes = record.json?["record"]?["attributes"]
        #expect(attributes?["firstName"] == "Marian")
        #expect(attributes?["salary"] == nil && attributes?["budget"] == nil && attributes?["hired"] == nil, "only mapped attributes: \(record.text)")
        #expect(ownedClient.call("GET", "/v1/items/employee_Marian_Paul/source", key: other).status == 404)
        // The operator's own resolve finds the tenant's item only when asked for that owner.
        #expect(try CommandRunner.run(["resolve", "employee_Marian_Paul", "--data", owned.data]).status == 1)
        #expect(try CommandRunner.run(["resolve", "employee_Marian_Paul", "--owner", "hr-app", "--data", owned.data]).status == 0)
        // A source ingested for one owner is not silently moved to another.
        let moved = try CommandRunner.run(owned.ingest())
        #expect(moved.status == 64 && moved.stderr.contains("hr-app"), "\(moved.stderr)")
    }
}
