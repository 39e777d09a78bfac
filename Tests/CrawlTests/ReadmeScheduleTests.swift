import Foundation
import SearchlightTestSupport
import Testing

/// The README's schedules — the cron line, the systemd service and timer, `crawl --every` —
/// run as written, each in a checkout that has never crawled (no `crawl-data/`): only the
/// checkout's place (`/srv/searchlight`) is replaced, and the binary at
/// `.build/release/searchlight` is a two-line script that hands the real one the fixture
/// site's address (`--resolve`, `--allow-private`), which a real site does not need.
@Suite(.serialized) struct ReadmeScheduleTests {
    static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("README.md")
    static let host = "cron.web.test"

    /// The text of the first fenced block after the line containing `marker`.
    static func codeBlock(after marker: String) throws -> String {
        let text = try String(contentsOf: readme, encoding: .utf8)
        let start = try #require(text.range(of: marker), "README has no '\(marker)'")
        let open = try #require(text.range(of: "```\n", range: start.upperBound..<text.endIndex))
        let close = try #require(text.range(of: "\n```", range: open.upperBound..<text.endIndex))
        return String(text[open.upperBound..<close.lowerBound])
    }

    /// A unit file's `Key=value` settings (the last of a key wins).
    static func settings(of unit: String) -> [String: String] {
        Dictionary(unit.split(separator: "\n").compactMap { line -> (String, String)? in
            guard let equals = line.firstIndex(of: "=") else { return nil }
            return (String(line[..<equals]), String(line[line.index(after: equals)...]))
        }, uniquingKeysWith: { $1 })
    }

    /// The unit files (name → text) through `systemd-analyze verify`, where it is installed.
    static func verify(_ units: [String: String]) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") else {
            print("systemd-analyze is not installed: the unit files' syntax was not checked, only the service's command run")
            return
        }
        let folder = try TemporaryDirectory("units")
        defer { folder.remove() }
        for (name, text) in units { try text.write(toFile: folder.path + "/" + name, atomically: true, encoding: .utf8) }
        let verify = Process()
        verify.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-analyze")
        verify.arguments = ["verify"] + units.keys.sorted().map { "./" + $0 }
        verify.currentDirectoryURL = folder.url
        let errors = Pipe()
        verify.standardError = errors
        try verify.run()
        verify.waitUntilExit()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(verify.terminationStatus == 0, "systemd-analyze verify: \(said)")
    }

    /// A checkout that has never crawled: `seeds/default.txt` names the fixture site and
    /// `.build/release/searchlight` runs the built binary.
    struct Checkout {
        let web: FixtureWeb
        let folder: TemporaryDirectory
        var root: String { folder.url.appendingPathComponent("srv/searchlight").path }
        var data: String { root + "/crawl-data" }

        init() throws {
            web = try FixtureWeb()
            let page = { (title: String, links: [String]) in
                "<html><head><title>\(title)</title></head><body><h1>\(title)</h1><p>\(title), a page of the scheduled site, "
                    + "long enough to be an item of its own.</p>" + links.map { "<a href=\"\($0)\">\($0)</a>" }.joined() + "</body></html>"
            }
            web.page(Self.host, "/", html: page("Schedule home", ["/one", "/two"]))
            web.page(Self.host, "/one", html: page("Hourly quince", []))
            web.page(Self.host, "/two", html: page("Second page", []))
            folder = try TemporaryDirectory("readme-schedule")
            let manager = FileManager.default
            try manager.createDirectory(atPath: root + "/.build/release", withIntermediateDirectories: true)
            try manager.createDirectory(atPath: root + "/seeds", withIntermediateDirectories: true)
            try "# the operator's sites\n\(web.origin(Self.host))/\n".write(toFile: root + "/seeds/default.txt", atomically: true, encoding: .utf8)
            let binary = root + "/.build/release/searchlight"
            try "#!/bin/sh\nexec '\(CommandRunner.executable.path)' \"$@\" --resolve \(web.resolveEntry(Self.host)) --allow-private --delay 0\n"
                .write(toFile: binary, atomically: true, encoding: .utf8)
            try manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: binary)
        }

        static let host = ReadmeScheduleTests.host

        /// `text` with the README's checkout replaced by this one.
        func placed(_ text: String) -> String { text.replacingOccurrences(of: "/srv/searchlight", with: root) }

        /// The crawl found the site: its pages are searchable from the data folder it made.
        func expectCrawled(_ context: String) throws {
            let found = try CommandRunner.run(["search", "hourly quince", "--data", data, "--json"])
            #expect(found.status == 0, "\(context): \(found.stderr)")
            #expect(found.stdout.contains("\(web.origin(Self.host))/one"), "\(context): \(found.stdout)")
        }

        func remove() {
            web.stop()
            folder.remove()
        }
    }

    @Test func theCronLineRunsInAFolderThatHasNeverCrawled() throws {
        let checkout = try Checkout()
        defer { checkout.remove() }
        let line = try Self.codeBlock(after: "cron (`crontab -e`)")
        let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
        try #require(fields.count == 6, "five time fields and a command: \(line)")
        #expect(fields[0...4].joined(separator: " ") == "0 * * * *")
        #expect(!FileManager.default.fileExists(atPath: checkout.data))
        // cron runs the command with /bin/sh from the user's home.
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", checkout.placed(String(fields[5]))]
        shell.currentDirectoryURL = URL(fileURLWithPath: "/")
        shell.standardInput = FileHandle.nullDevice
        try shell.run()
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 0)
        let log = try String(contentsOfFile: checkout.data + "/cron.log", encoding: .utf8)
        #expect(log.contains("fetched 3 pages"), "\(log)")
        try checkout.expectCrawled("cron")
    }

    @Test func theSystemdServiceAndTimerRunAsWritten() throws {
        let checkout = try Checkout()
        defer { checkout.remove() }
        let service = checkout.placed(try Self.codeBlock(after: "systemd: `/etc/systemd/system/searchlight-crawl.service`"))
        let timer = try Self.codeBlock(after: "and `/etc/systemd/system/searchlight-crawl.timer`")
        let settings = Self.settings(of: service)
        let directory = try #require(settings["WorkingDirectory"])
        let command = try #require(settings["ExecStart"]).split(separator: " ").map(String.init)
        #expect(settings["Type"] == "oneshot")

        try Self.verify(["searchlight-crawl.service": service, "searchlight-crawl.timer": timer])

        // As systemd starts it: no shell, in WorkingDirectory, stdin from /dev/null.
        let run = Process()
        run.executableURL = URL(fileURLWithPath: command[0])
        run.arguments = Array(command.dropFirst())
        run.currentDirectoryURL = URL(fileURLWithPath: directory)
        run.standardInput = FileHandle.nullDevice
        let output = Pipe()
        run.standardOutput = output
        run.standardError = output
        try run.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        run.waitUntilExit()
        #expect(run.terminationStatus == 0, "\(text)")
        #expect(text.contains("fetched 3 pages"), "\(text)")
        try checkout.expectCrawled("systemd")
    }

    @Test func everyRunsInTheForegroundUntilSIGTERM() throws {
        let checkout = try Checkout()
        defer { checkout.remove() }
        let command = try Self.codeBlock(after: "keep one process in the foreground:").split(separator: " ").map(String.init)
        #expect(command.starts(with: [".build/release/searchlight", "crawl", "--every"]))
        let run = Process()
        run.executableURL = URL(fileURLWithPath: checkout.root + "/" + command[0])
        run.arguments = Array(command.dropFirst())
        run.currentDirectoryURL = URL(fileURLWithPath: checkout.root)
        let output = Pipe()
        run.standardOutput = output
        run.standardError = Pipe()
        try run.run()
        // The first run's report, then the line that says when the next one starts.
        var text = ""
        while !text.contains("Next run at "), run.isRunning {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
        }
        kill(run.processIdentifier, SIGTERM)
        text += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        run.waitUntilExit()
        #expect(run.terminationReason == .exit && run.terminationStatus == 0, "SIGTERM ends the schedule cleanly: \(text)")
        #expect(text.contains("fetched 3 pages"), "\(text)")
        #expect(text.contains("Next run at "), "\(text)")
        try checkout.expectCrawled("--every")
    }

    /// The continuous unit as systemd starts it: the run stays alive with the site crawled,
    /// and SIGTERM (systemctl stop) ends it cleanly.
    @Test func theContinuousUnitRunsAsWritten() throws {
        let checkout = try Checkout()
        defer { checkout.remove() }
        let service = checkout.placed(try Self.codeBlock(after: "systemd: `/etc/systemd/system/searchlight-crawl.service` (no timer)"))
        let settings = Self.settings(of: service)
        let command = try #require(settings["ExecStart"]).split(separator: " ").map(String.init)
        #expect(command.contains("--continuous"))
        try Self.verify(["searchlight-crawl.service": service])
        let run = Process()
        run.executableURL = URL(fileURLWithPath: command[0])
        run.arguments = Array(command.dropFirst())
        run.currentDirectoryURL = URL(fileURLWithPath: try #require(settings["WorkingDirectory"]))
        run.standardInput = FileHandle.nullDevice
        let output = Pipe()
        run.standardOutput = output
        run.standardError = Pipe()
        try run.run()
        defer { if run.isRunning { run.terminate() } }
        let deadline = Date().addingTimeInterval(60)
        var crawled = false
        while !crawled, run.isRunning, Date() < deadline {
            crawled = (try? CommandRunner.run(["search", "hourly quince", "--data", checkout.data, "--json"]).stdout.contains("/one")) ?? false
            if !crawled { usleep(100_000) }
        }
        #expect(crawled && run.isRunning, "the site is crawled and the run stays alive")
        kill(run.processIdentifier, SIGTERM)
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        run.waitUntilExit()
        #expect(run.terminationStatus == 0 && text.contains("fetched 3 pages"), "\(text)")
    }
}
