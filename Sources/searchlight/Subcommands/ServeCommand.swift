import Crawl
import EmbeddedStore
import Foundation
import Ingest
import ItemMapping
import HTTPServer
import JSON
import PostgresStore
import Router
import Service
import ServiceAPI
import StoreSeams

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
            GET /metrics (Prometheus) and GET /v1/openapi.json describe the service.

            Search answers are cached: the service's own writes show at once, another process's
            commits (a crawl's) within --refresh-seconds; an answer is recomputed after
            --cache-seconds and never served past one of its results' expiry. SIGINT or SIGTERM
            stops accepting connections and lets requests in flight finish.

            With --store the node serves a shared PostgreSQL store: writes go to the store, and
            searches read a copy in DIR that follows the store's change log (built from a
            snapshot on first start); a search gets 503 while the copy is more than --max-lag
            behind. Any number of nodes can serve one store.

            With --shard K/N a node holds one shard of the store's index and records where it
            answers (--advertise). `serve --store URL --router` holds no index: it answers
            GET /v1/search by asking one live replica of every shard (another if one fails or
            is slow past --hedge-ms), ranking with the statistics of the whole index, and
            merging; an answer missing a shard says so ("partial": true). Run several.
            """,
        options: [
            DataDirectory.option,
            Option.listen,
            Option.threads.spec,
            Option.activityThreshold.spec,
            Option.cacheSeconds.spec,
            Option.refreshSeconds.spec,
            Option.cacheMegabytes.spec,
            Option.maxConnections.spec,
            Option.maxConnectionsPerAddress.spec,
            Option.openapi,
            StoreOption.option,
            Option.maxLag.spec,
            Option.node,
            Option.shard,
            Option.advertise,
            Option.router,
            Option.hedgeMilliseconds.spec,
            Option.tlsCertificate,
            Option.tlsKey,
            Option.cacert,
            Option.insecureNodes,
            Option.accessLog,
            Option.indexNow,
            Option.allowPrivate,
            Option.resolve,
        ],
        examples: ["searchlight serve --listen 0.0.0.0:8080", "searchlight serve --openapi > docs/openapi.json",
                   "searchlight serve --store postgres://search@db/searchlight --shard 0/4 --listen 0.0.0.0:8081 --advertise http://node1:8081",
                   "searchlight serve --store postgres://search@db/searchlight --router --listen 0.0.0.0:8080",
                   "searchlight serve --indexnow --listen 0.0.0.0:8080"])

    var data: DataDirectory
    var host: String
    var port: UInt16
    var threads: Int
    var activityThreshold: Int
    var cacheSeconds: Int
    var refreshSeconds: Int
    var cacheMegabytes: Int
    var maximumConnections: Int
    var maximumConnectionsPerAddress: Int
    var printOpenAPI: Bool
    var store: StoreOption
    var maximumLag: Double
    var nodeName: String?
    /// With `--store`: the part of the index this node holds.
    var shard: Shard
    /// With `--store`: the URL routers reach this node at.
    var advertise: String?
    var isRouter: Bool
    var hedgeMilliseconds: Int
    var accessLogPath: String?
    /// `--tls-cert` and `--tls-key`: serve https.
    var tls: HTTPServer.TLS?
    /// With `--router`: the CA certificates nodes advertised over https are checked against.
    var caCertificatesFile: String?
    /// With `--router`: ask nodes advertised over plain http on other machines too.
    var insecureNodes: Bool
    /// `--indexnow`: take sites' IndexNow notices into the crawl's frontier.
    var takesIndexNow: Bool
    var allowPrivate: Bool
    /// `--resolve HOST:PORT:ADDRESS` for the key fetcher, as `crawl --resolve`.
    var resolve: [String]

    init(arguments: ParsedArguments) throws(UsageError) {
        data = DataDirectory(arguments)
        let listen = arguments.value(Option.listen) ?? "127.0.0.1:8080"
        guard let colon = listen.lastIndex(of: ":"), let port = UInt16(listen[listen.index(after: colon)...]) else {
            throw UsageError("--listen needs HOST:PORT, such as 127.0.0.1:8080, not '\(listen)'")
        }
        host = String(listen[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        self.port = port
        threads = try arguments.value(Option.threads)
        activityThreshold = try arguments.value(Option.activityThreshold)
        cacheSeconds = try arguments.value(Option.cacheSeconds)
        refreshSeconds = try arguments.value(Option.refreshSeconds)
        cacheMegabytes = try arguments.value(Option.cacheMegabytes)
        maximumConnections = try arguments.value(Option.maxConnections)
        maximumConnectionsPerAddress = try arguments.value(Option.maxConnectionsPerAddress)
        printOpenAPI = arguments.flag(Option.openapi)
        store = try StoreOption(arguments)
        maximumLag = try arguments.value(Option.maxLag)
        nodeName = arguments.value(Option.node)
        if let text = arguments.value(Option.shard) {
            guard let parsed = Shard(parsing: text) else {
                throw UsageError("--shard needs K/N, shard K (from 0) of N (at most \(Shard.maximumCount)), such as 0/4, not '\(text)'")
            }
            guard store.url != nil else { throw UsageError("--shard needs --store: shards are parts of a shared store's index") }
            shard = parsed
        } else {
            shard = .whole
        }
        advertise = arguments.value(Option.advertise)
        if let advertise, !(advertise.hasPrefix("http://") || advertise.hasPrefix("https://")) || advertise.utf8.count > 512 {
            throw UsageError("--advertise needs the URL routers reach this node at, such as http://node1:8081, not '\(advertise.prefix(100))'")
        }
        isRouter = arguments.flag(Option.router)
        if isRouter {
            guard store.url != nil else { throw UsageError("--router needs --store: a router finds the shards' nodes in the shared store") }
            guard arguments.value(Option.shard) == nil else { throw UsageError("--router holds no shard: give --shard to the search nodes") }
        }
        hedgeMilliseconds = try arguments.value(Option.hedgeMilliseconds)
        accessLogPath = arguments.value(Option.accessLog)
        switch (arguments.value(Option.tlsCertificate), arguments.value(Option.tlsKey)) {
        case (nil, nil): tls = nil
        case (let certificate?, let key?):
            guard let certificatePEM = try? String(contentsOfFile: certificate, encoding: .utf8),
                let keyPEM = try? String(contentsOfFile: key, encoding: .utf8)
            else { throw UsageError("--tls-cert and --tls-key need readable PEM files: '\(certificate.prefix(200))', '\(key.prefix(200))'") }
            tls = HTTPServer.TLS(certificatePEM: certificatePEM, privateKeyPEM: keyPEM)
        default: throw UsageError("--tls-cert and --tls-key go together: the certificate and its private key")
        }
        takesIndexNow = arguments.flag(Option.indexNow)
        allowPrivate = arguments.flag(Option.allowPrivate)
        if isRouter, takesIndexNow { throw UsageError("--indexnow is for a node with the crawl's store, not --router") }
        if allowPrivate, !takesIndexNow { throw UsageError("--allow-private is for --indexnow: key files on private addresses") }
        resolve = arguments.values(Option.resolve)
        for entry in resolve where entry.split(separator: ":").count < 3 {
            throw UsageError("--resolve needs HOST:PORT:ADDRESS, not '\(entry)'")
        }
        if !resolve.isEmpty, !takesIndexNow { throw UsageError("--resolve is for --indexnow: where key files are fetched from") }
        insecureNodes = arguments.flag(Option.insecureNodes)
        if insecureNodes, !isRouter { throw UsageError("--insecure-nodes is for --router: which nodes it sends its credential to") }
        caCertificatesFile = arguments.value(Option.cacert)
        if let caCertificatesFile {
            guard isRouter else { throw UsageError("--cacert is for --router: the CA that nodes' https certificates are checked against") }
            guard FileManager.default.isReadableFile(atPath: caCertificatesFile) else {
                throw UsageError("--cacert needs a readable PEM file, not '\(caCertificatesFile.prefix(200))'")
            }
        }
    }

    func run() throws {
        if printOpenAPI {
            Console.write(JSONWriter.string(OpenAPIDocument.json, style: .pretty) + "\n")
            return
        }
        let shared = try store.open()
        if isRouter, let shared { return try route(shared) }
        if shared == nil, !FileManager.default.fileExists(atPath: data.path) {
            // A mistyped --data must not start an empty service that looks healthy.
            throw CommandFailure("no data folder at \(data.path): give the folder a crawl, `index add` or `keys create` wrote, "
                + "or create it (mkdir -p \(data.path)) to start an empty index")
        }
        try data.create()
        var configuration = SearchService.Configuration(indexPath: data.indexPath)
        configuration.activityThreshold = activityThreshold
        // Searches are CPU work: more of them at once than twice the cores only thrash the
        // connections' caches (measured: 16 readers on 2 cores answered a quarter as many
        // uncached searches as 4). Server threads beyond that wait for a reader.
        configuration.readers = min(threads, 2 * ProcessInfo.processInfo.activeProcessorCount)
        configuration.cacheLifetime = TimeInterval(cacheSeconds)
        configuration.cacheRefreshInterval = TimeInterval(refreshSeconds)
        configuration.cacheBytes = cacheMegabytes << 20
        configuration.maximumLag = maximumLag
        configuration.accessLog = try accessLog()
        let data = self.data
        configuration.recordResolver = { owner, reference in
            // Only sources ingested here for that owner; items pushed from elsewhere (`ingest
            // --server`) answer with their reference only.
            try? RecordLookup.record(reference, owner: owner, data: data).record.json
        }
        configuration.crawlFigures = { [shared] in
            if let shared { return try shared.crawlFigures() }
            return try CrawlStatus.crawlFigures(dataDirectory: data.path)
        }
        if takesIndexNow {
            let crawlStore: any CrawlStore = try shared.map { PostgresCrawlStore($0) } ?? LocalCrawlStore(dataDirectory: data.path)
            configuration.indexNow = IndexNowDesk(frontier: CrawlStoreNotices(crawlStore, waking: shared == nil ? data.path : nil),
                                                  fetcher: CrawlerKeyFetcher(allowPrivateAddresses: allowPrivate, resolve: resolve))
        }
        let service: SearchService
        var follower: LogFollower?
        if let shared {
            let name = nodeName ?? "\(ProcessInfo.processInfo.hostName):\(port)"
            if !shard.isWhole, let count = try shared.shardCount(), count != shard.count {
                Console.writeLine("The store's searches are split into \(count) shards; this node builds shard \(shard) for a split into \(shard.count): "
                    + "routers ask it once `searchlight shards --set \(shard.count)`.")
            }
            let replica = try LogFollower(store: shared, indexPath: data.indexPath, name: name, shard: shard)
            Console.writeLine("Bringing the copy in \(data.indexPath) up to date with the shared store…")
            try replica.catchUp()
            replica.start()
            follower = replica
            service = try SearchService(configuration: configuration, items: PostgresItemStore(shared), keys: PostgresKeyStore(shared),
                                        replica: replica)
        } else {
            service = try SearchService(configuration: configuration)
        }
        defer { follower?.stop() }
        StopSignal.install()
        let running = try service.serve(serverConfiguration)
        let address = advertise ?? "\(tls == nil ? "http" : "https")://\(Self.reachable(host)):\(running.port)"
        // Router requests are signed for the address routers find in the store: answer as it
        // before it is advertised.
        service.answer(as: address)
        follower?.advertise(address)
        Console.writeLine("Serving \(data.indexPath) on \(tls == nil ? "http" : "https")://\(host.contains(":") ? "[\(host)]" : host):\(running.port)")
        StopSignal.wait(until: .distantFuture)
        Console.writeLine("Stopping: letting requests in flight finish.")
        running.stop(gracePeriod: 10)
    }
}

extension ServeCommand {
    /// `serve --router`: no index, the shards' nodes found in the store.
    private func route(_ shared: SharedStore) throws {
        var configuration = SearchRouter.Configuration()
        configuration.maximumLag = maximumLag
        configuration.hedgeAfter = Double(hedgeMilliseconds) / 1000
        configuration.accessLog = try accessLog()
        configuration.caCertificatesFile = caCertificatesFile
        configuration.allowsPlainHTTPNodes = insecureNodes
        let router = SearchRouter(configuration: configuration, directory: shared, salt: try PostgresKeyStore(shared).deviceSalt())
        StopSignal.install()
        let running = try router.serve(serverConfiguration)
        let map = router.map
        if map.count == 0 { Console.writeLine("No search node of the store is reporting yet.") }
        if !map.missing.isEmpty { Console.writeLine("No live node yet for shard(s) \(map.missing.map(String.init).joined(separator: ", ")) of \(map.count).") }
        Console.writeLine("Routing searches over \(map.count) shard(s) on \(tls == nil ? "http" : "https")://\(host.contains(":") ? "[\(host)]" : host):\(running.port)")
        StopSignal.wait(until: .distantFuture)
        Console.writeLine("Stopping: letting requests in flight finish.")
        running.stop(gracePeriod: 10)
        router.stop()
    }

    /// The HTTP server's settings, a node's or a router's.
    private var serverConfiguration: HTTPServer.Configuration {
        var server = HTTPServer.Configuration()
        server.host = host
        server.port = port
        server.threading = .pool(threads)
        server.connectionLimit = maximumConnections
        server.perAddressConnectionLimit = maximumConnectionsPerAddress
        server.tls = tls
        return server
    }

    private func accessLog() throws -> AccessLog? {
        guard let accessLogPath else { return nil }
        do {
            return try AccessLog(path: accessLogPath)
        } catch {
            throw CommandFailure("cannot open the access log \(accessLogPath): \(error.localizedDescription)")
        }
    }

    /// A name other machines can reach for an address the server listens on: the host's
    /// name for a wildcard address.
    static func reachable(_ host: String) -> String {
        if ["0.0.0.0", "::", ""].contains(host) { return ProcessInfo.processInfo.hostName }
        return host.contains(":") ? "[\(host)]" : host
    }

    /// The options this command reads.
    enum Option {
        static let listen = OptionSpec.value("--listen", "host:port", help: "The address to listen on (default 127.0.0.1:8080; port 0 picks a free one).")
        static let threads = Setting.whole("--threads", help: "Server threads (a slow request holds one thread); searches use at most 2 read connections per core",
                                           in: 1...256, default: 2 * ProcessInfo.processInfo.activeProcessorCount, shown: "2 per core")
        static let activityThreshold = Setting.whole("--activity-threshold", help: "Distinct devices before an activity is public", in: 1...1_000_000, default: 3)
        static let cacheSeconds = Setting.whole("--cache-seconds", help: "Reuse a search answer for at most n seconds; 0 turns the result cache off",
                                                in: 0...3600, default: 60)
        static let refreshSeconds = Setting.whole("--refresh-seconds", help: "Show other processes' commits (a crawl's) in cached answers within n seconds",
                                                  in: 0...3600, default: 1)
        static let cacheMegabytes = Setting.whole("--cache-megabytes", help: "Memory for cached answers, in MiB", in: 1...65536, default: 64)
        static let maxConnections = Setting.whole("--max-connections", help: "Connections open at once, within the file-descriptor limit",
                                                  in: 16...100_000, default: 1024)
        static let maxConnectionsPerAddress = Setting.whole("--max-connections-per-address", help: "Connections open at once from one client address",
                                                            in: 1...100_000, default: 64)
        static let openapi = OptionSpec.flag("--openapi", help: "Print the OpenAPI document and exit.")
        static let maxLag = Setting.duration("--max-lag", help: "With --store: answer searches only from a copy at most this far behind",
                                             in: 1...86_400, default: 5)
        static let shard = OptionSpec.value(
            "--shard", "K/N", help: "With --store: hold and answer from shard K (from 0) of N only; items go to shards by a hash of owner and id.")
        static let advertise = OptionSpec.value(
            "--advertise", "url", help: "With --store: the URL routers reach this node at (default http://HOST:PORT of --listen, the host's name for 0.0.0.0).")
        static let router = OptionSpec.flag("--router", help: "With --store: hold no index; answer searches from one live replica of every shard, merged.")
        static let hedgeMilliseconds = Setting.whole("--hedge-ms", help: "With --router: ask a second replica of a shard when the first has not answered after n ms",
                                                     in: 1...60_000, default: 50)
        static let node = OptionSpec.value("--node", "name", help: "With --store: this node's name in `status` (default host:port).")
        static let tlsCertificate = OptionSpec.value(
            "--tls-cert", "file", help: "Serve https with this PEM certificate (chain), with --tls-key; a node advertises https then.")
        static let tlsKey = OptionSpec.value("--tls-key", "file", help: "The PEM private key of --tls-cert.")
        static let cacert = OptionSpec.value(
            "--cacert", "file", help: "With --router: trust the CA certificates in this PEM file for nodes advertised over https.")
        static let insecureNodes = OptionSpec.flag(
            "--insecure-nodes", help: "With --router: also ask nodes advertised over plain http on other machines (the router's credential then crosses\n"
                + "the network in clear); by default only https nodes and this machine's are asked.")
        static let indexNow = OptionSpec.flag(
            "--indexnow", help: "Take IndexNow notices (GET/POST /indexnow) for the hosts the crawl knows: checked against the site's key file, the URLs made due.")
        static let allowPrivate = OptionSpec.flag("--allow-private", help: "With --indexnow: fetch key files from private, loopback and link-local addresses too.")
        static let resolve = OptionSpec.value("--resolve", "host:port:addr", help: "With --indexnow: fetch key files of HOST:PORT from ADDR, as crawl --resolve.",
                                              repeatable: true)
        static let accessLog = OptionSpec.value("--access-log", "file", help: "Append a line per request to this file, in the Combined Log Format with the time taken in ms.")
    }
}
