import Foundation
import JSON
import SearchlightTestSupport
import Testing

/// `serve --store … --indexnow`: a notice lands in the shared store's frontier (real
/// PostgreSQL), the next crawl worker of the fleet fetches the page, and the node that took
/// the notice finds it once its copy has caught up.
@Suite struct SharedIndexNowTests {
    static let key = "7a1b2c3d4e5f6071"

    /// A one-page shop on 127.0.0.1 serving its IndexNow key file.
    static func harbourShop() throws -> (web: FixtureWeb, host: String, origin: String) {
        let web = try FixtureWeb()
        let host = "127.0.0.1"
        web.page(host, "/", html: "<title>Harbour shop</title><p>Ropes and lanterns for the harbour.</p>")
        web.file(host, "/\(key).txt", contentType: "text/plain", bytes: Array(key.utf8))
        return (web, host, web.origin(host))
    }

    @Test func aNoticeReachesTheSharedFrontier() throws {
        let store = try PostgresCluster.shared.get().newDatabase()
        let web = try FixtureWeb()
        defer { web.stop() }
        let host = "127.0.0.1"
        web.page(host, "/", html: "<title>Harbour shop</title><p>Ropes and lanterns for the harbour.</p>")
        web.file(host, "/robots.txt", contentType: "text/plain", bytes: Array("User-agent: *\nAllow: /\n".utf8))
        web.file(host, "/\(Self.key).txt", contentType: "text/plain", bytes: Array(Self.key.utf8))
        let origin = web.origin(host)
        let crawl = ["crawl", origin + "/", "--store", store, "--allow-private", "--delay", "0", "--no-warc", "--no-sitemaps"]
        let first = try Member(crawl, name: "crawl-1")
        defer { first.stop() }
        #expect(first.wait() == 0, "\(first.output)")

        let node = try SearchNode(store: store, name: "notices", extra: ["--indexnow", "--allow-private"])
        defer { node.stop() }
        web.page(host, "/zanzibar", html: "<title>Zanzibar lanterns</title><p>Brass lanterns from Zanzibar.</p>")
        let notice: JSONValue = ["host": .string(host), "key": .string(Self.key), "urlList": .array([.string(origin + "/zanzibar")])]
        let accepted = node.call("POST", "/indexnow", json: notice)
        #expect(accepted.status == 202 && accepted.json?["added"] == 1, "\(String(describing: accepted.json))")
        let stranger = node.call("GET", "/indexnow?url=http%3A%2F%2Flocalhost%3A\(web.port)%2Fa&key=\(Self.key)")
        #expect(stranger.status == 422 && stranger.json?["error"]?["code"] == "unknown-host")

        let second = try Member(crawl, name: "crawl-2")
        defer { second.stop() }
        #expect(second.wait() == 0, "\(second.output)")
        #expect(node.search("zanzibar", until: { $0 == [origin + "/zanzibar"] }, timeout: 60) == [origin + "/zanzibar"])
    }

    /// Two `crawl --continuous` workers on the shared store stay alive; a notice taken by a
    /// node is fetched by one of them without any new run, and both stop cleanly on SIGTERM
    /// (issue 59).
    @Test func continuousWorkersTakeANoticeWithoutANewRun() throws {
        let store = try PostgresCluster.shared.get().newDatabase()
        let (web, host, origin) = try Self.harbourShop()
        defer { web.stop() }
        let crawl = ["crawl", origin + "/", "--store", store, "--allow-private", "--delay", "0", "--no-warc", "--no-sitemaps", "--continuous"]
        let workers = [try Member(crawl, name: "continuous-1"), try Member(crawl, name: "continuous-2")]
        defer { workers.forEach { $0.stop() } }
        let node = try SearchNode(store: store, name: "notices", extra: ["--indexnow", "--allow-private"])
        defer { node.stop() }
        #expect(node.search("harbour", until: { !$0.isEmpty }, timeout: 60) == [origin + "/"])
        web.page(host, "/zanzibar", html: "<title>Zanzibar lanterns</title><p>Brass lanterns from Zanzibar.</p>")
        let notice: JSONValue = ["host": .string(host), "key": .string(Self.key), "urlList": .array([.string(origin + "/zanzibar")])]
        #expect(node.call("POST", "/indexnow", json: notice).status == 202)
        #expect(node.search("zanzibar", until: { $0 == [origin + "/zanzibar"] }, timeout: 60) == [origin + "/zanzibar"])
        #expect(workers.allSatisfy { $0.process.isRunning }, "the workers stay alive")
        // Items and records are one commit in the shared store: the latency is counted.
        let metrics = node.text("/metrics")
        #expect(metrics.contains("searchlight_crawl_notice_to_searchable_seconds_count 1"), "\(metrics)")
        let status = try Member(["status", "--store", store], name: "status")
        #expect(status.wait() == 0 && status.output.contains("searchable: notice → searchable p50 ≤"), "\(status.output)")
        for worker in workers { kill(worker.process.processIdentifier, SIGTERM) }
        for worker in workers { #expect(worker.wait(timeout: 60) == 0, "\(worker.output)") }
        #expect(web.requests.filter { $0.hasSuffix("/zanzibar") }.count == 1, "one worker fetched it")
    }

    /// A continuous worker lives through a PostgreSQL restart: its session connects again,
    /// its wake-up listens again, and a notice taken after the restart is fetched with no new
    /// run (issue 59).
    @Test func aContinuousWorkerCarriesOnAfterPostgreSQLRestarts() throws {
        let cluster = try PostgresCluster.own()
        let store = try cluster.newDatabase()
        let (web, host, origin) = try Self.harbourShop()
        defer { web.stop() }
        let worker = try Member(["crawl", origin + "/", "--store", store, "--allow-private", "--delay", "0", "--no-warc", "--no-sitemaps", "--continuous"],
                                name: "continuous")
        defer { worker.stop() }
        let node = try SearchNode(store: store, name: "notices", extra: ["--indexnow", "--allow-private"])
        defer { node.stop() }
        #expect(node.search("harbour", until: { !$0.isEmpty }, timeout: 60) == [origin + "/"])

        try cluster.restart()
        web.page(host, "/zanzibar", html: "<title>Zanzibar lanterns</title><p>Brass lanterns from Zanzibar.</p>")
        let notice: JSONValue = ["host": .string(host), "key": .string(Self.key), "urlList": .array([.string(origin + "/zanzibar")])]
        // The node's own connection comes back on its next statement.
        #expect(waitUntil(timeout: 60) { node.call("POST", "/indexnow", json: notice).status == 202 })
        #expect(node.search("zanzibar", until: { $0 == [origin + "/zanzibar"] }, timeout: 90) == [origin + "/zanzibar"], "\(worker.output)")
        #expect(worker.process.isRunning, "the worker lived through the restart: \(worker.output)")
        kill(worker.process.processIdentifier, SIGTERM)
        #expect(worker.wait(timeout: 60) == 0, "\(worker.output)")
    }
}
