import Foundation
import SearchlightTestSupport
import Testing

/// The search page in a real browser: headless Chromium from Debian, driven through
/// chromedriver's WebDriver API by `Tests/Browser/search_page_browser.py`, against
/// `searchlight serve` on the demo index. Screenshots of each state are written to
/// `$SEARCHLIGHT_SCREENSHOTS` (default: a `search-page-screenshots` folder in the temporary
/// directory), named in the output, for a reviewer to look at.
@Suite(.serialized) struct SearchPageTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Browser/search_page_browser.py")

    @Test func thePageWorksInABrowser() throws {
        let folder = try TemporaryDirectory("page")
        defer { folder.remove() }
        let data = folder.url.appendingPathComponent("data").path
        let demo = try CommandRunner.run(["demo", "--data", data], timeout: 180)
        #expect(demo.status == 0, "\(demo.stderr)")
        // Every command the demo printed for its kept folder pastes and runs (issue 56): the
        // searches, the ingest and the resolve (the crawl's needs the demo web, gone now).
        let shown = demo.stdout.split(separator: "\n").filter { $0.hasPrefix("$ searchlight ") && !$0.hasPrefix("$ searchlight crawl") }
        #expect(shown.count >= 10, "\(demo.stdout)")
        for line in shown {
            #expect(line.contains("--data "), "\(line)")
            let command = CommandRunner.executable.path + line.dropFirst("$ searchlight".count)
            let pasted = try CommandRunner.run(["-c", command], binary: URL(fileURLWithPath: "/bin/sh"))
            #expect(pasted.status == 0 && !pasted.stdout.isEmpty, "\(line): \(pasted.stderr)")
        }

        let key = try CommandRunner.run(["keys", "create", "--owner", "nameless", "--domain", "nameless.example", "--data", data])
        #expect(key.status == 0, "\(key.stderr)")
        let server = Process()
        server.executableURL = CommandRunner.executable
        server.arguments = ["serve", "--data", data, "--listen", "127.0.0.1:0"]
        let output = Pipe()
        server.standardOutput = output
        server.standardError = Pipe()
        try server.run()
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        var text = ""
        let deadline = Date().addingTimeInterval(20)
        while !text.contains("\n"), Date() < deadline { text += String(decoding: output.fileHandleForReading.availableData, as: UTF8.self) }
        let base = try #require(text.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })

        let shots = ProcessInfo.processInfo.environment["SEARCHLIGHT_SCREENSHOTS"]
            ?? (NSTemporaryDirectory() as NSString).appendingPathComponent("search-page-screenshots")
        let browser = Process()
        browser.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        browser.arguments = ["python3", Self.script.path, base, shots, key.stdout.trimmingCharacters(in: .whitespacesAndNewlines)]
        let report = Pipe()
        browser.standardOutput = report
        browser.standardError = report
        try browser.run()
        let lines = String(decoding: report.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        browser.waitUntilExit()
        print("search page screenshots: \(shots)\n\(lines)")
        #expect(browser.terminationStatus == 0, "\(lines)")
        #expect(lines.contains("ok   the page loads"))
        #expect(lines.contains("ok   an app no page names gets no badge and no name line"), "\(lines)")
        #expect(lines.contains("ok   every result once, none twice"), "\(lines)")
    }
}
