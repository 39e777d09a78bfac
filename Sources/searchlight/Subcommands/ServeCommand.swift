import Foundation
import HTTPServer
import JSON
import Service

/// `searchlight serve [--data DIR] [--listen HOST:PORT]`
struct ServeCommand: Command {
    static let spec = CommandSpec(
        name: "serve",
        abstract: "Serve the index as an HTTP API: search, push, activities, engagement, health and metrics.",
        discussion: """
            Reads need no key: GET /v1/search takes q, limit, platform, installed and answers in the
            shape of `search --json`. Writes need `Authorization: Bearer <key>` from `searchlight keys
            create`: POST and DELETE /v1/items, DELETE /v1/domains/{domainIdentifier}, GET and POST
            /v1/batches/{name} (compare-and-swap on the client state), POST /v1/activities (public once
            --activity-threshold distinct devices reported one) and POST /v1/engagement. GET /healthz,
            GET /metrics (Prometheus) and GET /v1/openapi.json describe the service. SIGINT or SIGTERM
            stops accepting connections and lets requests in flight finish.
            """,
        options: [
            DataDirectory.option,
            .value("--listen", "host:port", help: "The address to listen on (default 127.0.0.1:8080; port 0 picks a free one)."),
            .value("--threads", "n", help: "Server threads (default: twice the cores)."),
            .value("--activity-threshold", "n", help: "Distinct devices before an activity is public (default 3)."),
            .flag("--openapi", help: "Print the OpenAPI document and exit."),
        ],
        examples: ["searchlight serve --listen 0.0.0.0:8080", "searchlight serve --openapi > docs/openapi.json"])

    var data: DataDirectory
    var host: String
    var port: UInt16
    var threads: Int
    var activityThreshold: Int
    var printOpenAPI: Bool

    init(arguments: ParsedArguments) throws(UsageError) {
        data = DataDirectory(arguments)
        let listen = arguments.value("--listen") ?? "127.0.0.1:8080"
        guard let colon = listen.lastIndex(of: ":"), let port = UInt16(listen[listen.index(after: colon)...]) else {
            throw UsageError("--listen needs HOST:PORT, such as 127.0.0.1:8080, not '\(listen)'")
        }
        host = String(listen[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        self.port = port
        threads = try arguments.int("--threads", in: 1...256) ?? max(2, ProcessInfo.processInfo.activeProcessorCount * 2)
        activityThreshold = try arguments.int("--activity-threshold", in: 1...1_000_000) ?? 3
        printOpenAPI = arguments.flag("--openapi")
    }

    func run() throws {
        if printOpenAPI {
            Console.write(JSONWriter.string(OpenAPIDocument.json, style: .pretty) + "\n")
            return
        }
        try data.create()
        var configuration = SearchService.Configuration(indexPath: data.indexPath)
        configuration.activityThreshold = activityThreshold
        configuration.readers = threads
        let service = try SearchService(configuration: configuration)
        var server = HTTPServer.Configuration()
        server.host = host
        server.port = port
        server.threading = .pool(threads)
        server.maximumBodyBytes = configuration.maximumBodyBytes
        StopSignal.install()
        let running = try HTTPServer(configuration: server) { service.handle($0) }
        Console.writeLine("Serving \(data.indexPath) on http://\(host.contains(":") ? "[\(host)]" : host):\(running.port)")
        StopSignal.wait(until: .distantFuture)
        Console.writeLine("Stopping: letting requests in flight finish.")
        running.stop(gracePeriod: 10)
    }
}
