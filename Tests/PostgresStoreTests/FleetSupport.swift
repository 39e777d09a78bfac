import Fetch
import Foundation
import Glibc
import JSON
import Postgres
import SearchlightTestSupport
import Testing

/// A `searchlight` process left running: a crawl worker or a search node of a fleet that
/// shares one PostgreSQL store. Its output goes to a file in its data folder.
final class Member {
    let process = Process()
    let folder: TemporaryDirectory
    let outputPath: String

    init(_ arguments: [String], name: String) throws {
        folder = try TemporaryDirectory(name)
        outputPath = folder.path + "/output.txt"
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        process.executableURL = CommandRunner.executable
        process.arguments = arguments + ["--data", folder.path]
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try output.close()
    }

    var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    /// Waits for the process to end (at most `timeout` seconds, then it is killed).
    @discardableResult
    func wait(timeout: Double = 120) -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    func killHard() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        folder.remove()
    }
}

/// A `searchlight serve` node of the fleet (or, with `--router`, a router), on a free port.
final class SearchNode: @unchecked Sendable {
    // @unchecked: other threads only call `call`/`search`, which read the immutable port and
    // the Sendable client; the process is handled by the test that owns the node.
    let member: Member
    let port: Int
    let client: HTTPClient

    init(store: String, name: String, extra: [String] = []) throws {
        member = try Member(["serve", "--store", store, "--listen", "127.0.0.1:0", "--node", name, "--cache-seconds", "0"] + extra,
                            name: name)
        let deadline = Date().addingTimeInterval(60)
        var port: Int?
        while port == nil, Date() < deadline, member.process.isRunning {
            port = member.output.split(separator: "\n").lazy.compactMap { line -> Int? in
                guard line.hasPrefix("Serving ") || line.hasPrefix("Routing "), let colon = line.lastIndex(of: ":") else { return nil }
                return Int(line[line.index(after: colon)...])
            }.first
            if port == nil { usleep(50_000) }
        }
        guard let port else {
            Issue.record("the node did not start: \(member.output)")
            throw CancellationError()
        }
        self.port = port
        var fetch = FetchConfiguration(userAgent: "searchlight-tests")
        fetch.addressPolicy = .any
        client = HTTPClient(configuration: fetch)
    }

    /// One request to the node: its status and its JSON.
    func call(_ method: String, _ path: String, json: JSONValue? = nil, key: String? = nil) -> (status: Int, json: JSONValue?) {
        var request = FetchRequest(url: "http://127.0.0.1:\(port)" + path)
        request.method = method
        if let json {
            request.body = JSONWriter.bytes(json)
            request.headers.append(.init("Content-Type", "application/json"))
        }
        if let key { request.headers.append(.init("Authorization", "Bearer \(key)")) }
        let response = client.fetch(request)
        return (response.status, try? JSONParser.parse(bytes: response.body))
    }

    /// One GET to the node: its body as text (`/metrics`).
    func text(_ path: String) -> String {
        String(decoding: client.fetch(FetchRequest(url: "http://127.0.0.1:\(port)" + path)).body, as: UTF8.self)
    }

    /// The ids a search finds, in order, and the answer's status.
    func search(_ query: String) -> (status: Int, ids: [String]) {
        let reply = call("GET", "/v1/search?q=" + (query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? query) + "&limit=50")
        return (reply.status, reply.json?["results"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? [])
    }

    /// Searches until `accept` holds (or `timeout` passes); returns the last answer.
    func search(_ query: String, until accept: ([String]) -> Bool, timeout: Double = 10) -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        var last = search(query).ids
        while !accept(last), Date() < deadline {
            usleep(100_000)
            last = search(query).ids
        }
        return last
    }

    func stop() {
        client.shutdown()
        member.stop()
    }
}

/// Waits until `condition` holds, checking every 50 ms, for at most `timeout` seconds (a
/// bound for a stuck run, not a guess at how long things take); whether it held.
@discardableResult
func waitUntil(timeout: Double = 60, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while try !condition() {
        guard Date() < deadline else { return false }
        usleep(50_000)
    }
    return true
}

/// One query against the shared database, on a connection of its own.
func scalar(_ database: String, _ sql: String) throws -> Int {
    try PostgresConnection(url: database).execute(sql).first?.int(0) ?? -1
}
