import DemoWeb
import Fetch
import Foundation
import HTTPTypes
import Items
import JSON
import SQLite
import SearchIndex
import SearchlightTestSupport
import Testing

/// `searchlight ingest` and `searchlight resolve` through the executable: the seed's
/// searches, bad mappings, a run killed with SIGKILL, `--watch`, and `--server`.
@Suite(.serialized) struct IngestCommandTests {
    struct Folder {
        let folder: TemporaryDirectory
        var store: String { folder.url.appendingPathComponent("HR.sqlite").path }
        var data: String { folder.url.appendingPathComponent("data").path }
        var ingest: [String] { ["ingest", store, "--mapping", DemoApps.hrMapping.path, "--model", DemoApps.hrModel.path, "--data", data] }

        init() throws {
            folder = try TemporaryDirectory("ingest-cli")
            try DemoApps.makeHRStore(at: store)
        }

        func app(_ sql: String) throws { try SQLiteConnection(path: store).execute(sql) }

        func search(_ query: String) throws -> [JSONValue] {
            let result = try CommandRunner.run(["search", query, "--data", data, "--json", "--limit", "50"])
            return try JSONParser.parse(result.stdout)["results"]?.arrayValue ?? []
        }
    }

    /// A to-many path without the data model names --model as what it needs (issue 56).
    @Test func aToManyPathWithoutTheModelAsksForIt() throws {
        let hr = try Folder()
        defer { hr.folder.remove() }
        let result = try CommandRunner.run(["ingest", hr.store, "--mapping", DemoApps.hrMapping.path, "--data", hr.data])
        #expect(result.status != 0)
        #expect(result.stderr.contains("'projects'") && result.stderr.contains("give the model with --model"), "\(result.stderr)")
    }

    /// On a terminal a run shows where it is (rows read, items changed, rate, time left) on
    /// standard error and clears it before the report; through a pipe nothing unless
    /// `--progress line` (issue 56).
    @Test func progressOnATerminalOnly() throws {
        let hr = try Folder()
        defer { hr.folder.remove() }
        let quoted = ([CommandRunner.executable.path] + hr.ingest).map { "'\($0)'" }.joined(separator: " ")
        // `script` runs the command on a pseudo-terminal, as a user's shell would.
        let terminal = Process()
        terminal.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        terminal.arguments = ["-qefc", quoted, "/dev/null"]
        let screen = Pipe()
        terminal.standardOutput = screen
        terminal.standardInput = FileHandle.nullDevice
        try terminal.run()
        let shown = String(decoding: screen.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        terminal.waitUntilExit()
        #expect(terminal.terminationStatus == 0, "\(shown)")
        #expect(shown.contains("\u{1B}[K0:00 finding changes "), "the line drawn in place: \(shown)")
        #expect(shown.contains("\r\u{1B}[Jhr: 10 created"), "cleared before the report: \(shown)")

        let piped = try CommandRunner.run(hr.ingest + ["--json"])
        #expect(piped.status == 0 && piped.stderr.isEmpty, "nothing but the report through a pipe: \(piped.stderr)")
        try hr.app("UPDATE ZEMPLOYEE SET ZLASTNAME = 'Quince', Z_OPT = Z_OPT + 1 WHERE Z_PK = 2")
        let asked = try CommandRunner.run(hr.ingest + ["--progress", "line"])
        #expect(asked.status == 0)
        #expect(asked.stderr.hasPrefix("0:00 finding changes ") && asked.stderr.contains(" rows · "), "\(asked.stderr)")
        #expect(asked.stdout.hasPrefix("hr: 0 created, 1 updated"), "\(asked.stdout)")
        let wrong = try CommandRunner.run(hr.ingest + ["--progress", "hosts"])
        #expect(wrong.status == 64 && wrong.stderr.contains("--progress must be auto, line, none"), "\(wrong.stderr)")
    }

    @Test func theSeedsSearchesAndResolve() throws {
        let hr = try Folder()
        defer { hr.folder.remove() }
        let first = try CommandRunner.run(hr.ingest + ["--json"])
        #expect(first.status == 0, "\(first.stderr)")
        let report = try JSONParser.parse(first.stdout)
        #expect(report["created"] == 10 && report["full"] == true)
        #expect(report["skipped"]?["empty-title"] == 1)
        #expect(first.stdout.hasPrefix("{\n  \""), "indented like every --json output")
        let status = try JSONParser.parse(try CommandRunner.run(["status", "--data", hr.data, "--json"]).stdout)
        #expect(status["index"]?["bySource"]?["ingested"] == 10, "ingested items are not counted as pushed: \(status["index"] ?? .null)")
        let again = try CommandRunner.run(hr.ingest)
        #expect(again.stdout.contains("rows read, 0 of them new, changed or gone"), "\(again.stdout)")

        let marian = try #require(try hr.search("Marian Paul").first)
        #expect(marian["id"] == "employee_Marian_Paul")
        #expect(marian["source"] == ["name": "hr", "entity": "Manager", "key": "1"])
        #expect(marian["apps"]?.arrayValue?.first?["deepLink"] == "hr://companies/Wasappli/E001")
        let employees = try hr.search("employee").compactMap { $0["id"]?.stringValue }.filter { $0.hasPrefix("employee_") }
        #expect(employees.count == 7)

        let resolved = try CommandRunner.run(["resolve", "employee_Marian_Paul", "--data", hr.data, "--json"])
        #expect(resolved.status == 0, "\(resolved.stderr)")
        let record = try JSONParser.parse(resolved.stdout)
        #expect(record["entity"] == "Manager" && record["key"] == "1")
        #expect(record["attributes"]?["firstName"] == "Marian" && record["attributes"]?["jobTitle"] != nil)
        // Only what the mapping reads: the Manager's budget and hire date are not shown.
        #expect(record["attributes"]?["budget"] == nil && record["attributes"]?["hired"] == nil && record["attributes"]?["salary"] == nil)
        #expect(record["relationships"]?["company"]?["keys"] == ["1"])
        #expect(record["relationships"]?["projects"]?["keys"] == ["1", "3"])
        let text = try CommandRunner.run(["resolve", "company_Wasappli", "--data", hr.data])
        #expect(text.stdout.contains("company_Wasappli → hr Company 1") && text.stdout.contains("employees → Employee 1, 2, 3"))

        // A deleted record says so; an item nobody ingested is not a record.
        try hr.app("DELETE FROM ZEMPLOYEE WHERE Z_PK = 1")
        let gone = try CommandRunner.run(["resolve", "employee_Marian_Paul", "--data", hr.data])
        #expect(gone.status == 1 && gone.stderr.contains("no longer in"))
        #expect(try CommandRunner.run(hr.ingest).stdout.hasPrefix("hr: 0 created, 1 updated, 1 deleted"))
        #expect(try CommandRunner.run(["resolve", "employee_Marian_Paul", "--data", hr.data]).stderr.contains("no item"))
    }

    @Test func badMappingsAndStoresAreUsageErrors() throws {
        let hr = try Folder()
        defer { hr.folder.remove() }
        let mapping = hr.folder.url.appendingPathComponent("m.json")
        try #"{"source": "hr", "mappings": [{"entity": "Employee", "uniqueIdentifierPattern": "e{#employeeID#}", "titlePattern": "{#company.nmae#}"}]}"#
            .write(to: mapping, atomically: true, encoding: .utf8)
        let wrongPath = try CommandRunner.run(["ingest", hr.store, "--mapping", mapping.path, "--model", DemoApps.hrModel.path, "--data", hr.data])
        #expect(wrongPath.status == 64)
        #expect(wrongPath.stderr.contains("m.json: mappings[0] (Employee): {#company.nmae#} in title: Company has no attribute or relationship 'nmae'"
            + " — did you mean 'name'?"), "\(wrongPath.stderr)")
        #expect(!wrongPath.stderr.contains("usage:"), "a bad file is not a bad command line: no usage line")
        try #"{"source": "hr", "mappings": [{"entity": "Employee", "uniqueIdentifierPattern": "e{#employeeID#}", "titelPattern": "{#firstName#}"}]}"#
            .write(to: mapping, atomically: true, encoding: .utf8)
        let misspelt = try CommandRunner.run(["ingest", hr.store, "--mapping", mapping.path, "--data", hr.data])
        #expect(misspelt.status == 64 && misspelt.stderr.contains("titelPattern: unknown field; did you mean 'titlePattern'?"), "\(misspelt.stderr)")
        try #"{"source": "hr", "mappings": [{"entity": "Boss", "uniqueIdentifierPattern": "x", "titlePattern": "y"}]}"#
            .write(to: mapping, atomically: true, encoding: .utf8)
        #expect(try CommandRunner.run(["ingest", hr.store, "--mapping", mapping.path, "--data", hr.data]).stderr.contains("no entity Boss"))
        let notSQLite = hr.folder.url.appendingPathComponent("notes.txt")
        try "just text".write(to: notSQLite, atomically: true, encoding: .utf8)
        #expect(try CommandRunner.run(["ingest", notSQLite.path, "--mapping", DemoApps.hrMapping.path, "--data", hr.data]).status == 64)
        #expect(try CommandRunner.run(["ingest", hr.store, "--mapping", "/nonexistent.json", "--data", hr.data]).status == 64)
        #expect(try CommandRunner.run(["ingest", hr.store, "--mapping", DemoApps.hrMapping.path, "--model", "/nonexistent", "--data", hr.data]).status == 64)
        #expect(!FileManager.default.fileExists(atPath: hr.data + "/index.sqlite"), "nothing written")
    }

    @Test func aRunKilledWithSIGKILLResumes() throws {
        let hr = try Folder()
        defer { hr.folder.remove() }
        // 40,000 more employees, so that the first run takes long enough to be killed.
        try hr.app("""
            WITH RECURSIVE n(i) AS (SELECT 100 UNION ALL SELECT i + 1 FROM n WHERE i < 40099)
            INSERT INTO ZEMPLOYEE (Z_PK, Z_ENT, Z_OPT, ZCOMPANY, ZFIRSTNAME, ZLASTNAME, ZJOBTITLE, ZEMPLOYEEID)
            SELECT i, 2, 1, 1 + i % 3, 'First' || i, 'Last' || i, 'job ' || (i % 50), 'E' || i FROM n;
            """)
        let process = Process()
        process.executableURL = CommandRunner.executable
        process.arguments = hr.ingest
        process.standardOutput = Pipe()
        process.standardError = Pipe()
        try process.run()
        // Kill it once a few batches are in.
        let deadline = Date().addingTimeInterval(60)
        var indexed = 0
        while Date() < deadline, process.isRunning {
            usleep(20_000)
            indexed = (try? SearchIndex(path: hr.data + "/index.sqlite", mode: .existing).count()) ?? 0
            if indexed >= 4000 { break }
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal, "killed mid-run (\(indexed) items in)")
        let resumed = try CommandRunner.run(hr.ingest + ["--json"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let report = try JSONParser.parse(resumed.stdout)
        let index = try SearchIndex(path: hr.data + "/index.sqlite", mode: .existing)
        #expect(try index.count() == 40_010)
        let created = report["created"]?.intValue ?? 0
        #expect(created + indexed <= 40_010 + 2000, "the resumed run wrote \(created); \(indexed) were in before the kill")
        #expect(created < 40_010, "what was committed is not written again")
        #expect(try index.item(ItemKey(owner: nil, identifier: "employee_First40099_Last40099"))?.record?.key == "40099")
        let quiet = try JSONParser.parse(try CommandRunner.run(hr.ingest + ["--json"]).stdout)
        #expect(quiet["created"] == 0 && quiet["updated"] == 0 && quiet["deleted"] == 0)
    }

    @Test func watchAppliesEachSaveWithinASecond() throws {
        let hr = try Folder()
        defer { hr.folder.remove() }
        let watch = try CommandRunner.start(hr.ingest + ["--watch"])
        defer { watch.stop() }
        #expect(watch.firstLine.hasPrefix("hr: 10 created"))
        let index = try SearchIndex(path: hr.data + "/index.sqlite", mode: .existing)
        for (sql, id, check) in [
            ("UPDATE ZEMPLOYEE SET ZJOBTITLE = 'chief baker', Z_OPT = Z_OPT + 1 WHERE Z_PK = 4", "employee_Claire_Dubois", "chief baker"),
            ("UPDATE ZCOMPANY SET ZACTIVITY = 'pastries', Z_OPT = Z_OPT + 1 WHERE Z_PK = 2", "company_Boulangerie Lumière", "pastries"),
        ] {
            let saved = Date()
            try hr.app(sql)
            var seen: TimeInterval?
            while Date().timeIntervalSince(saved) < 10 {
                if try index.item(ItemKey(owner: nil, identifier: id))?.contentDescription?.contains(check) == true {
                    seen = Date().timeIntervalSince(saved)
                    break
                }
                usleep(20_000)
            }
            let delay = try #require(seen, "\(check) never reached the index")
            #expect(delay < 1.5, "applied \(delay) s after the save")
        }
    }

    @Test func serverModeSendsBatchesUnderTheKeysOwner() throws {
        let hr = try Folder()
        defer { hr.folder.remove() }
        let server = hr.folder.url.appendingPathComponent("server").path
        func key(_ owner: String, _ domain: String) throws -> String {
            try CommandRunner.run(["keys", "create", "--owner", owner, "--domain", domain, "--data", server]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let owner = try key("hr-app", "hr.example")
        let stranger = try key("other", "other.example")
        let serve = try CommandRunner.start(["serve", "--data", server, "--listen", "127.0.0.1:0", "--cache-seconds", "0"])
        defer { serve.stop() }
        let base = try #require(serve.firstLine.split(separator: " ").last.map(String.init))

        let sent = try CommandRunner.run(hr.ingest + ["--server", base, "--key", owner, "--json"])
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(try JSONParser.parse(sent.stdout)["created"] == 10)
        try hr.app("UPDATE ZEMPLOYEE SET ZJOBTITLE = 'chief baker', Z_OPT = Z_OPT + 1 WHERE Z_PK = 4")
        let again = try JSONParser.parse(try CommandRunner.run(hr.ingest + ["--server", base, "--key", owner, "--json"]).stdout)
        #expect(again["updated"] == 1 && again["created"] == 0)

        var configuration = FetchConfiguration(userAgent: "tests")
        configuration.addressPolicy = .any
        let client = HTTPClient(configuration: configuration)
        defer { client.shutdown() }
        let found = client.fetch(FetchRequest(url: base + "/v1/search?q=chief%20baker"))
        let hit = try #require(try JSONParser.parse(bytes: found.body)["results"]?.arrayValue?.first)
        #expect(hit["id"] == "employee_Claire_Dubois")
        #expect(hit["source"] == "pushed", "a public answer names no app record")
        func source(_ id: String, _ key: String) -> FetchResponse {
            client.fetch(FetchRequest(url: base + "/v1/items/\(id)/source", headers: [HTTPField("Authorization", "Bearer \(key)")]))
        }
        let mine = source("employee_Claire_Dubois", owner)
        #expect(mine.status == 200)
        #expect(try JSONParser.parse(bytes: mine.body)["source"]?["key"] == "4")
        #expect(source("employee_Claire_Dubois", stranger).status == 404, "another tenant learns nothing")
        #expect(source("employee_Nobody", owner).status == 404)
        #expect(client.fetch(FetchRequest(url: base + "/v1/items/employee_Claire_Dubois/source")).status == 401)
        // The batch's client state is the last token, under the key's own batch names.
        let batch = client.fetch(FetchRequest(url: base + "/v1/batches/ingest-hr", headers: [HTTPField("Authorization", "Bearer \(owner)")]))
        #expect(try JSONParser.parse(bytes: batch.body)["clientState"] == "2")
    }
}
