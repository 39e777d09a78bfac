import Foundation
import JSON
import SearchlightTestSupport
import Testing

/// `searchlight index add|delete` and `searchlight search`, through the executable.
@Suite struct SearchCommandTests {
    static let items = """
        {"items": [
         {"uniqueIdentifier": "person-42", "domainIdentifier": "com.example.staff.people", "title": "Becky Lin",
          "contentDescription": "Illustrator who draws portraits", "keywords": ["friend"], "thumbnailURL": "https://example.com/img/42.png",
          "webURL": "https://example.com/people/42", "apps": [{"platform": "ios", "appStoreId": "1234567890", "name": "Friends",
          "deepLink": "friends://person/42"}]},
         {"uniqueIdentifier": "person-43", "domainIdentifier": "com.example.staffing", "title": "Sam Becker", "contentDescription": "Portrait sitter"},
         {"uniqueIdentifier": "live-1", "title": "篮球直播", "webURL": "https://live.example/1", "allowsWebFallback": false,
          "apps": [{"platform": "android", "package": "com.live", "deepLink": "live://1"}, {"platform": "ios", "appStoreId": "77"}]}
        ]}
        """

    func withIndex(_ body: (String) throws -> Void) throws {
        let folder = try TemporaryDirectory("search-cli")
        defer { folder.remove() }
        let file = folder.url.appendingPathComponent("items.json")
        try Self.items.write(to: file, atomically: true, encoding: .utf8)
        let data = folder.url.appendingPathComponent("data").path
        let added = try CommandRunner.run(["index", "add", file.path, "--data", data])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.hasPrefix("added 3 items"))
        try body(data)
    }

    @Test func searchPrintsTheDesignJSONShape() throws {
        try withIndex { data in
            let result = try CommandRunner.run(["search", "becky portrait", "--data", data, "--json"])
            #expect(result.status == 0, "\(result.stderr)")
            let json = try JSONParser.parse(result.stdout)
            #expect(json["query"] == "becky portrait")
            let hit = try #require(json["results"]?.arrayValue?.first)
            #expect(hit.objectValue?.keys.prefix(9).elementsEqual(
                ["id", "url", "title", "description", "domain", "thumbnail", "score", "apps", "action"]) == true)
            #expect(hit["id"] == "person-42")
            #expect(hit["domain"] == "example.com")
            #expect(hit["score"]?.doubleValue ?? 0 > 0)
            #expect(hit["apps"]?.arrayValue?.first?["installURL"] == "https://apps.apple.com/app/id1234567890")
            #expect(hit["apps"]?.arrayValue?.first?["package"] == .null)
            #expect(hit["action"] == ["type": "open-web", "url": "https://example.com/people/42"])
            let installed = try JSONParser.parse(try CommandRunner.run(["search", "becky", "--data", data, "--json", "--installed", "1234567890"]).stdout)
            #expect(installed["results"]?.arrayValue?.first?["action"] == ["type": "open-app", "url": "friends://person/42"])
        }
    }

    @Test func actionsPerPlatform() throws {
        try withIndex { data in
            func action(_ extra: [String]) throws -> JSONValue? {
                let result = try CommandRunner.run(["search", "直播", "--data", data, "--json"] + extra)
                return try JSONParser.parse(result.stdout)["results"]?.arrayValue?.first?["action"]
            }
            let ios = try action([])
            let android = try action(["--platform", "android"])
            let installed = try action(["--platform", "android", "--installed", "com.live"])
            #expect(ios == ["type": "install-app", "url": "https://apps.apple.com/app/id77"])
            #expect(android == ["type": "install-app", "url": "https://play.google.com/store/apps/details?id=com.live"])
            #expect(installed == ["type": "open-app", "url": "live://1"])
        }
    }

    @Test func humanOutputNamesTheActionAndHighlights() throws {
        try withIndex { data in
            let result = try CommandRunner.run(["search", "portrait", "--data", data])
            #expect(result.status == 0)
            #expect(result.stdout.contains("1. "))
            #expect(result.stdout.contains("tap: open-web https://example.com/people/42"))
            #expect(result.stdout.contains("*portraits*") || result.stdout.contains("*Portrait*"))
            let none = try CommandRunner.run(["search", "zebra", "--data", data])
            #expect(none.status == 0)
            #expect(none.stdout == "No results for \"zebra\".\n")
        }
    }

    @Test func deletesAreHierarchicalByDomain() throws {
        try withIndex { data in
            let deleted = try CommandRunner.run(["index", "delete", "--domain", "com.example.staff", "--data", data])
            #expect(deleted.stdout == "deleted 1 item\n", "com.example.staff.people, not com.example.staffing")
            let left = try JSONParser.parse(try CommandRunner.run(["search", "portrait", "--data", data, "--json"]).stdout)
            #expect(left["results"]?.arrayValue?.map { $0["id"] } == ["person-43"])
            #expect(try CommandRunner.run(["index", "delete", "--all", "--data", data]).stdout == "deleted 2 items\n")
            #expect(try CommandRunner.run(["index", "delete", "--id", "a", "--all", "--data", data]).status == 64)
        }
    }

    @Test func badInputGetsTheRightExitCode() throws {
        try withIndex { data in
            for arguments in [["search", "", "--data", data], ["search", "()", "--data", data], ["search", "x", "--limit", "0", "--data", data],
                              ["search", "x", "--platform", "windows", "--data", data], ["search", "x", "--data", data, "--installed"]] {
                let result = try CommandRunner.run(arguments)
                #expect(result.status == 64, "\(arguments)")
                #expect(result.stderr.hasPrefix("error: "))
            }
            // Invalid UTF-8 cannot be put in a Swift string: pass it through the shell.
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "\"$0\" search \"$(printf 'caf\\351')\" --data \"$1\"", CommandRunner.executable.path, data]
            let err = Pipe()
            process.standardError = err
            process.standardOutput = Pipe()
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 64)
            #expect(String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).contains("invalid"))
        }
        let missing = try CommandRunner.run(["search", "x", "--data", "/nonexistent/data"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no index at /nonexistent/data/index.sqlite"))
    }

    @Test func aDamagedIndexIsReportedNotCrashedOn() throws {
        let folder = try TemporaryDirectory("damaged")
        defer { folder.remove() }
        try Data(repeating: 0x5A, count: 16_384).write(to: folder.url.appendingPathComponent("index.sqlite"))
        let result = try CommandRunner.run(["search", "x", "--data", folder.path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("damaged or not an index"))
    }

    @Test func badItemFilesAddNothing() throws {
        let folder = try TemporaryDirectory("bad-items")
        defer { folder.remove() }
        let file = folder.url.appendingPathComponent("items.json")
        try #"{"items": [{"uniqueIdentifier": "ok", "title": "fine"}, {"uniqueIdentifier": "bad", "title": 5}]}"#
            .write(to: file, atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(["index", "add", file.path, "--data", folder.path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("items[1].title"))
        try "{not json".write(to: file, atomically: true, encoding: .utf8)
        #expect(try CommandRunner.run(["index", "add", file.path, "--data", folder.path]).stderr.contains("not valid JSON"))
    }

    /// A writer killed in the middle of a batch leaves the index as of the last commit.
    @Test func aKilledWriterLosesOnlyItsUncommittedBatch() throws {
        let folder = try TemporaryDirectory("killed")
        defer { folder.remove() }
        let data = folder.url.appendingPathComponent("data").path
        let first = folder.url.appendingPathComponent("first.json")
        try #"{"items": [{"uniqueIdentifier": "kept", "title": "committed before the crash"}]}"#.write(to: first, atomically: true, encoding: .utf8)
        #expect(try CommandRunner.run(["index", "add", first.path, "--data", data]).status == 0)
        let big = folder.url.appendingPathComponent("big.json")
        let body = String(repeating: "filler words for a long body text ", count: 25)
        let items = (0..<20_000).map { #"{"uniqueIdentifier": "bulk-\#($0)", "title": "bulk item \#($0)", "text": "\#(body)"}"# }
        try ("{\"items\": [" + items.joined(separator: ",") + "]}").write(to: big, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = CommandRunner.executable
        process.arguments = ["index", "add", big.path, "--data", data]
        process.standardOutput = Pipe()
        process.standardError = Pipe()
        try process.run()
        // Wait until the write transaction is under way (its WAL file grows), then kill.
        let wal = data + "/index.sqlite-wal"
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning, Date() < deadline {
            let size = (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0
            if size > 1 << 20 { break }
            usleep(5_000)
        }
        let killedMidWrite = process.isRunning
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(killedMidWrite, "the batch finished before it could be interrupted")
        let kept = try JSONParser.parse(try CommandRunner.run(["search", "committed", "--data", data, "--json"]).stdout)
        #expect(kept["results"]?.arrayValue?.map { $0["id"] } == ["kept"])
        let bulk = try JSONParser.parse(try CommandRunner.run(["search", "bulk", "--data", data, "--json", "--limit", "5"]).stdout)
        #expect(bulk["results"]?.arrayValue?.isEmpty == true, "no part of the interrupted batch is visible")
    }

    /// A mistake on the command line is named by the flag the person typed, with exit 64
    /// (issue 56): not the API's parameter, and never a silent empty answer.
    @Test func usageErrorsNameTheFlagTyped() throws {
        try withIndex { data in
            let platform = try CommandRunner.run(["search", "becky", "--data", data, "--has-app", "windows"])
            #expect(platform.status == 64)
            #expect(platform.stderr.contains("--has-app must be ios or android"), "\(platform.stderr)")
            #expect(!platform.stderr.contains("hasApp"))
            let radius = try CommandRunner.run(["search", "becky", "--data", data, "--radius", "5"])
            #expect(radius.status == 64)
            #expect(radius.stderr.contains("--radius needs --near latitude,longitude"), "\(radius.stderr)")
            let facets = try CommandRunner.run(["search", "becky", "--data", data, "--facets", "colour"])
            #expect(facets.status == 64 && facets.stderr.contains("--facets takes contentType, domain"), "\(facets.stderr)")
            // --installed-only without the apps it keeps to answered nothing, silently.
            let installedOnly = try CommandRunner.run(["search", "becky", "--data", data, "--installed-only"])
            #expect(installedOnly.status == 64)
            #expect(installedOnly.stderr.contains("--installed-only") && installedOnly.stderr.contains("--installed ID"), "\(installedOnly.stderr)")
            let kept = try CommandRunner.run(["search", "becky", "--data", data, "--installed-only", "--installed", "1234567890", "--json"])
            #expect(kept.status == 0)
            #expect(try JSONParser.parse(kept.stdout)["results"]?.arrayValue?.first?["id"] == "person-42")
        }
    }
}
