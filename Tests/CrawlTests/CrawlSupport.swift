import Foundation
import HTTPServer
import JSON
import SearchlightTestSupport

/// A crawl of fixture sites through the `searchlight` executable, in a fresh data folder.
struct CrawlRunner {
    let web: FixtureWeb
    let folder: TemporaryDirectory
    let hosts: [String]

    init(web: FixtureWeb, hosts: [String]) throws {
        self.web = web
        self.hosts = hosts
        folder = try TemporaryDirectory("crawl")
    }

    var data: String { folder.url.appendingPathComponent("data").path }

    /// Runs `searchlight crawl` with the seeds, `--resolve` for every host, the test CA,
    /// `--allow-private`, `--delay 0` unless given, and `--json`.
    func crawl(_ seeds: [String], _ extra: [String] = [], allowPrivate: Bool = true, timeout: Double = 120) throws -> (CommandResult, JSONValue?) {
        var arguments = ["crawl"] + seeds + ["--data", data, "--json", "--cacert", TestCertificates.caFile]
        for host in hosts { arguments += ["--resolve", web.resolveEntry(host)] }
        if allowPrivate { arguments.append("--allow-private") }
        if !extra.contains("--delay") { arguments += ["--delay", "0"] }
        let result = try CommandRunner.run(arguments + extra, timeout: timeout)
        return (result, try? JSONParser.parse(result.stdout))
    }

    /// `searchlight search … --json` on this crawl's index: the result objects.
    func search(_ query: String, _ extra: [String] = []) throws -> [JSONValue] {
        let limit = extra.contains("--limit") ? [] : ["--limit", "50"]
        let result = try CommandRunner.run(["search", query, "--data", data, "--json"] + limit + extra)
        guard result.status == 0 else { throw SearchFailed(message: result.stderr) }
        return try JSONParser.parse(result.stdout)["results"]?.arrayValue ?? []
    }

    func remove() { folder.remove() }
}

struct SearchFailed: Error, CustomStringConvertible {
    var message: String
    var description: String { "searchlight search failed: \(message)" }
}

extension JSONValue {
    func skipped(_ reason: String) -> Int { self["skipped"]?[reason]?.intValue ?? 0 }
}

/// A page with a title, some text and links.
func page(_ title: String, links: [String] = [], head: String = "", body: String = "") -> String {
    "<!DOCTYPE html><html><head><meta charset=utf-8><title>\(title)</title>\(head)</head><body><h1>\(title)</h1><p>\(body)</p>"
        + links.map { "<a href=\"\($0)\">\($0)</a>" }.joined(separator: " ") + "</body></html>"
}

/// Three words no other number gets (its digits as letters), so that pages built from a
/// template still each bring text of their own and are not near-duplicates.
func distinctWords(_ number: Int) -> String {
    (0..<3).map { part in
        "q" + String(String(number * 3 + part).map { Character(UnicodeScalar(UInt8(ascii: "a") + UInt8(String($0))!)) })
    }.joined(separator: " ")
}
