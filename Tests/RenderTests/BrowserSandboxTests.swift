import Foundation
import Glibc
import JSON
@testable import Render
import SearchlightTestSupport
import Testing

/// The browser keeps Chromium's sandbox: as root it runs as an unprivileged user, and only
/// where the kernel refuses user namespaces without the sandbox, saying so; profile folders a
/// killed crawler left are removed (issue 57).
@Suite(.serialized) struct BrowserSandboxTests {
    @Test func theDecisionFollowsTheFacts() {
        let nobody: (String) -> (uid_t, gid_t)? = { $0 == "nobody" ? (65534, 65534) : nil }
        #expect(BrowserSandbox.decide(isRoot: false, userNamespaces: false, setprivExists: false, user: nobody) == .own)
        #expect(BrowserSandbox.decide(isRoot: true, userNamespaces: true, setprivExists: true, user: nobody)
                == .unprivileged(user: "nobody", uid: 65534, gid: 65534))
        let dedicated = BrowserSandbox.decide(isRoot: true, userNamespaces: true, setprivExists: true) { $0 == "searchlight-browser" ? (998, 998) : (65534, 65534) }
        #expect(dedicated == .unprivileged(user: "searchlight-browser", uid: 998, gid: 998), "the dedicated user first")
        let refused = BrowserSandbox.decide(isRoot: true, userNamespaces: false, setprivExists: true, user: nobody)
        guard case .none(let why) = refused else { Issue.record("\(refused)"); return }
        #expect(why.contains("user namespaces"))
        #expect(refused.warning?.contains("without its sandbox") == true)
        #expect(BrowserSandbox.decide(isRoot: true, userNamespaces: true, setprivExists: true, user: nobody).warning == nil)
        #expect(BrowserSandbox.unprivileged(user: "nobody", uid: 65534, gid: 65534).command("/usr/bin/chromium", ["--headless"]).program
                == "/usr/bin/setpriv")
        #expect(BrowserSandbox.none("x").command("/usr/bin/chromium", ["--headless"]).arguments.first == "--no-sandbox")
    }

    /// As root on a kernel that allows user namespaces, the running browser is not root and
    /// was not told to drop its sandbox.
    @Test func asRootTheBrowserRunsUnprivilegedInItsSandbox() throws {
        guard geteuid() == 0 else {
            print("skipped: not root, so Chromium keeps its own sandbox as this user")
            return
        }
        guard case .unprivileged(let user, let uid, _) = BrowserSandbox.current else {
            print("skipped: \(BrowserSandbox.current.warning ?? "no unprivileged plan on this machine")")
            return
        }
        let browser = Browser()
        defer { browser.kill() }
        do {
            // Started, and answering: `setpriv` has made itself the browser by now.
            let generation = try browser.start()
            _ = try browser.send("Browser.getVersion", JSONObject(), generation: generation, timeout: 30)
        } catch {
            Issue.record("the browser did not start as \(user): \(error)")
            return
        }
        let pid = try #require(browser.processID)
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let uidLine = status.split(separator: "\n").first { $0.hasPrefix("Uid:") }.map(String.init) ?? ""
        #expect(uidLine.split(whereSeparator: \.isWhitespace).dropFirst().allSatisfy { $0 == String(uid) }, "\(uidLine)")
        let command = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))
        let arguments = command.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        #expect(!arguments.contains("--no-sandbox"), "\(arguments)")
    }

    @Test func aDeadCrawlersProfileIsRemoved() throws {
        let dead = Process()
        dead.executableURL = URL(fileURLWithPath: "/bin/true")
        try dead.run()
        dead.waitUntilExit()
        let abandoned = BrowserProfiles.directory + "/" + BrowserProfiles.prefix + "test-" + UUID().uuidString
        let mine = BrowserProfiles.directory + "/" + BrowserProfiles.prefix + "test-" + UUID().uuidString
        for path in [abandoned, mine] { try FileManager.default.createDirectory(atPath: path + "/Default", withIntermediateDirectories: true) }
        defer { for path in [abandoned, mine] { try? FileManager.default.removeItem(atPath: path) } }
        try String(dead.processIdentifier).write(toFile: abandoned + "/" + BrowserProfiles.ownerFile, atomically: false, encoding: .utf8)
        BrowserProfiles.claim(mine)
        BrowserProfiles.removeAbandoned()
        #expect(!FileManager.default.fileExists(atPath: abandoned), "its crawler is gone")
        #expect(FileManager.default.fileExists(atPath: mine), "this process's is kept")
    }
}
