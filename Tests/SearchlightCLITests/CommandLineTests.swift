import Foundation
import HTTPServer
import HTTPTypes
import JSON
import SearchlightTestSupport
import Testing

/// The `searchlight` executable, run as a user runs it.
@Suite struct CommandLineContractTests {
    @Test func helpAndVersionExitZero() throws {
        let help = try CommandRunner.run(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("OVERVIEW:"))
        #expect(help.stdout.contains("SUBCOMMANDS:"))
        #expect(help.stdout.contains("extract"))
        let bare = try CommandRunner.run([])
        #expect(bare.status == 0 && bare.stdout == help.stdout, "bare searchlight shows what it can do")
        // A group's subcommand gets its own help, options and all.
        for path in [["keys", "create"], ["keys", "list"], ["keys", "revoke"], ["index", "add"], ["index", "delete"]] {
            let sub = try CommandRunner.run(path + ["--help"])
            #expect(sub.status == 0 && sub.stdout.contains("USAGE: searchlight \(path.joined(separator: " "))"), "\(path): \(sub.stdout)")
        }
        let create = try CommandRunner.run(["keys", "create", "--help"])
        #expect(create.stdout.contains("--owner <name> --domain <domain>"), "required options are not bracketed: \(create.stdout)")
        #expect(try CommandRunner.run(["ingest", "--help"]).stdout.contains(" --mapping <file> "))
        let version = try CommandRunner.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.split(separator: ".").count == 3)
        for arguments in [["extract", "--help"], ["help", "extract"], ["extract", "-h"]] {
            let sub = try CommandRunner.run(arguments)
            #expect(sub.status == 0, "\(arguments)")
            #expect(sub.stdout.contains("USAGE: searchlight extract <file-or-url>"))
            #expect(sub.stdout.contains("--base-url <url>"))
        }
    }

    @Test(arguments: [
        ["frobnicate"], ["--frobnicate"], ["extract"], ["extract", "a.html", "b.html"], ["extract", "a.html", "--bogus"],
        ["extract", "a.html", "--timeout", "soon"], ["extract", "a.html", "--base-url", "not a url"], ["extract", "a.html", "--base-url"],
        ["extract", "a.html", "--json=yes"], ["help", "nothing"],
    ])
    func usageErrorsExit64WithTheUsageLine(_ arguments: [String]) throws {
        let result = try CommandRunner.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("error: "))
        #expect(result.stderr.contains("usage: searchlight"))
        #expect(result.stdout.isEmpty)
    }

    /// A mistyped data folder is refused, not served empty (as `status` refuses it).
    @Test func serveRefusesADataFolderThatIsNotThere() throws {
        let missing = "/tmp/searchlight-no-such-folder-\(UInt32.random(in: 0...UInt32.max))"
        let result = try CommandRunner.run(["serve", "--data", missing, "--listen", "127.0.0.1:0"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("no data folder at \(missing)"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    /// An owner that is given but malformed is not "required" (issue 56): the message says
    /// what is wrong with the value typed.
    @Test func aMalformedOwnerIsNamedNotCalledMissing() throws {
        let folder = try TemporaryDirectory("keys-owner")
        defer { folder.remove() }
        let bad = try CommandRunner.run(["keys", "create", "--owner", "bad owner", "--domain", "example.com", "--data", folder.url.path])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--owner 'bad owner' is not an owner name"), "\(bad.stderr)")
        #expect(!bad.stderr.contains("is required"))
        let missing = try CommandRunner.run(["keys", "create", "--domain", "example.com", "--data", folder.url.path])
        #expect(missing.status == 64 && missing.stderr.contains("--owner"), "\(missing.stderr)")
    }

    @Test func runtimeFailuresExit1() throws {
        let result = try CommandRunner.run(["extract", "/nonexistent/page.html"])
        #expect(result.status == 1)
        #expect(result.stderr == "error: cannot read '/nonexistent/page.html': no such file, or not readable\n")
    }
}

@Suite struct ExtractCommandTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("MarkupTests/Fixtures")

    @Test func summarisesAFile() throws {
        let result = try CommandRunner.run([
            "extract", Self.fixtures.appendingPathComponent("pages/recipe.html").path, "--base-url", "https://recipes.example/recipes/lemon-tart",
        ])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Smart App Banner (apple-itunes-app)"))
        #expect(result.stdout.contains("recipebox://recipe/lemon-tart?tags=citrus,dessert,tart&ref=web"))
        #expect(result.stdout.contains("App Links (al:*)"))
        #expect(result.stdout.contains("Main entity     Recipe"))
    }

    /// `--explain` shows each block of the page with the verdict that kept it in or out of the main text,
    /// in the summary and in `--json`, so an operator can see why a page matches (or does not).
    @Test func explainsWhichBlocksAreMainText() throws {
        let page = Self.fixtures.appendingPathComponent("pages/shop-boilerplate.html").path
        let text = try CommandRunner.run(["extract", page, "--explain"])
        #expect(text.status == 0)
        let lines = text.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("  + content") && $0.contains("A light trail shoe") })
        #expect(lines.contains { $0.hasPrefix("  - title") && $0.contains("Trail runner 3") }, "the headline repeating the title")
        #expect(lines.contains { $0.hasPrefix("  - outside-content") && $0.contains("We use cookies") })
        #expect(lines.contains { $0.hasPrefix("  - ") && $0.contains("You may also like") })
        #expect(text.stdout.contains("\nBlocks\n"))

        let plain = try CommandRunner.run(["extract", page])
        #expect(!plain.stdout.contains("outside-content"))

        let json = try JSONParser.parse(try CommandRunner.run(["extract", page, "--json", "--explain"]).stdout)
        let blocks = json["mainTextBlocks"]?.arrayValue ?? []
        #expect(blocks.contains { $0["verdict"] == "content" && ($0["text"]?.stringValue ?? "").contains("lug sole") })
        #expect(blocks.contains { $0["verdict"] == "outside-content" && ($0["text"]?.stringValue ?? "").contains("Imprint") })
        let body = json["bodyText"]?.stringValue ?? ""
        #expect(body.contains("lug sole") && !body.contains("cookies") && !body.contains("Imprint"))
    }

    @Test func printsTheFullMarkupAsJSON() throws {
        let result = try CommandRunner.run([
            "extract", Self.fixtures.appendingPathComponent("charset/shift_jis.html").path, "--json",
        ])
        #expect(result.status == 0)
        let json = try JSONParser.parse(result.stdout)
        #expect(json["title"] == "東京の天気 ～ 晴れ")
        #expect(json["charset"]?["encoding"] == "CP932")
        #expect(json["url"] == .null)
        for key in ["smartAppBanner", "appLinks", "twitterCard", "appAlternates", "openGraph", "schema", "schemaObjects", "outlinks", "warnings", "robots"] {
            #expect(json.objectValue?.keys.contains(key) == true, "\(key)")
        }
    }

    @Test func fetchesAURLOnceFollowingRedirects() throws {
        let web = try FixtureWeb(tls: true)
        defer { web.stop() }
        let html = try String(contentsOf: Self.fixtures.appendingPathComponent("pages/live-stream-zh.html"), encoding: .utf8)
        web.route("live.web.test", "/go") { _ in .redirect(to: "/room/8848") }
        web.page("live.web.test", "/room/8848", html: html, headers: [HTTPField("X-Robots-Tag", "noindex")])
        let arguments = ["extract", web.origin("live.web.test") + "/go", "--json", "--resolve", web.resolveEntry("live.web.test"),
                         "--cacert", TestCertificates.caFile]
        let result = try CommandRunner.run(arguments + ["--allow-private"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONParser.parse(result.stdout)
        #expect(json["url"] == .string(web.origin("live.web.test") + "/room/8848"))
        #expect(json["smartAppBanner"]?["appStoreID"] == "1600000001")
        #expect(json["robots"]?["noindex"] == true, "the X-Robots-Tag header counts")
        #expect(result.stderr.contains("note: redirected to"))
        #expect(web.requests == ["live.web.test/go", "live.web.test/room/8848"])

        let refused = try CommandRunner.run(arguments)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("refused to connect to non-public address 127.0.0.1"))

        let missing = try CommandRunner.run(["extract", web.origin("live.web.test") + "/nothing", "--allow-private", "--resolve",
                                             web.resolveEntry("live.web.test"), "--cacert", TestCertificates.caFile])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("HTTP 404"))
    }
}
