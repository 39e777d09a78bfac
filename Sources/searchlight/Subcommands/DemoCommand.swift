import Crawl
import DemoWeb
import Fetch
import Foundation
import Items
import SearchIndex
import WebURL

/// `searchlight demo`: the whole product on a machine with no network.
struct DemoCommand: Command {
    static let spec = CommandSpec(
        name: "demo",
        abstract: "Serve the bundled demo web, crawl it, and search it.",
        discussion: """
            Serves four demo app sites over HTTPS on 127.0.0.1 (Friends, 星火直播, Peak Shop and
            Tartine, a client-rendered app whose pages are rendered in headless Chromium), crawls
            them with robots.txt, sitemaps and association files as for any site, then runs
            searches with and without apps installed, so each action shows: open-web, open-app
            (including a verified universal link) and install-app.
            """,
        options: [
            Option.data, Option.serve,
        ],
        examples: ["searchlight demo", "searchlight demo --serve", "searchlight demo --data /tmp/demo-data && searchlight search lemon --data /tmp/demo-data"])

    var data: String?
    var serve: Bool

    init(arguments: ParsedArguments) throws(UsageError) {
        data = arguments.value(Option.data)
        serve = arguments.flag(Option.serve)
    }

    struct Search {
        var query: String
        var platform: AppTarget.Platform = .ios
        var installed: [String] = []
        var why: String

        /// The command that asks the same of the index; with the data folder kept, it pastes
        /// and runs as printed.
        func commandLine(data: String?) -> String {
            var line = "searchlight search \"\(query)\""
            if platform != .ios { line += " --platform \(platform.rawValue)" }
            for app in installed { line += " --installed \(app)" }
            return line + DemoCommand.dataOption(data)
        }
    }

    static let searches = [
        Search(query: "becky portrait", why: "Nothing installed: the web page."),
        Search(query: "becky portrait", installed: ["987654321"],
               why: "Friends installed; its apple-app-site-association claims /people/*, so the https URL opens the app."),
        Search(query: "直播", why: "The streaming app forbids the web fallback (al:web:should_fallback=false): the App Store."),
        Search(query: "篮球", platform: .android, installed: ["com.xinghuo.live"], why: "On Android with the app installed: its deep link."),
        Search(query: "trail shoes", why: "A shop page with a rating and a price, no app: the web page."),
        Search(query: "headlmap", why: "A typo: no page has 'headlmap'; 'headlamp' is one transposition away."),
        Search(query: "quince frangipane", installed: ["555000111"],
               why: "Tartine's pages are empty shells its script fills: rendered in Chromium, then the banner's app-argument opens the app."),
    ]

    func run() throws {
        let server = try DemoWeb.serve()
        defer { server.stop(gracePeriod: 1) }
        let hosts = DemoWeb.hosts
        let folder = data ?? (NSTemporaryDirectory() as NSString).appendingPathComponent("searchlight-demo-\(UUID().uuidString)")
        defer { if data == nil { try? FileManager.default.removeItem(atPath: folder) } }
        Console.writeLine("Serving the demo web on 127.0.0.1:\(server.port) over HTTPS: \(hosts.joined(separator: ", "))")

        var fetch = FetchConfiguration(userAgent: UserAgent.string)
        fetch.addressPolicy = .any
        fetch.caCertificatesFile = DemoWeb.caFile
        fetch.resolve = hosts.map { "\($0):\(server.port):127.0.0.1" }
        var configuration = CrawlConfiguration(dataDirectory: folder, fetch: fetch)
        configuration.software = "Searchlight/\(Searchlight.version)"
        configuration.seeds = hosts.compactMap { WebURL("https://\($0):\(server.port)/") }
        configuration.delay = 0
        configuration.perHostConnections = 4
        let commandLine = "searchlight crawl " + configuration.seeds.map(\.string).joined(separator: " ")
            + " --delay 0 --per-host 4 --cacert <demo CA> --allow-private " + fetch.resolve.map { "--resolve \($0)" }.joined(separator: " ")
        Console.writeLine("\n$ \(commandLine)")
        try DataDirectory(path: folder).create()
        guard let report = try CrawlRun(configuration: configuration).run(progress: .none) else { return }
        Console.write(report.summary)

        let index = try SearchIndex(path: DataDirectory(path: folder).indexPath, mode: .existing)
        for search in Self.searches {
            Console.writeLine("\n$ \(search.commandLine(data: data))")
            Console.writeLine("# \(search.why)")
            let response = try index.search(SearchRequest(search.query, limit: 3, platform: search.platform,
                                                          installed: Set(search.installed), snippets: true))
            Console.writeStyled(SearchResultsSummary(response: response, highlight: Console.isTerminal).text)
        }
        try ingestDemoApp(folder: folder, kept: data != nil)
        if serve {
            // The demo web keeps running too, so the results' pictures load in the page.
            Console.writeLine("\nWhile this runs, the demo web answers the other commands too (the README's examples, on the demo):")
            for line in Self.tryLines(port: server.port, data: folder) { Console.writeLine("  \(line)") }
            Console.writeLine("\n$ searchlight serve --data \(folder)")
            let arguments = try ParsedArguments(["--data", folder, "--listen", "127.0.0.1:0"], spec: ServeCommand.spec)
            try ServeCommand(arguments: arguments).run()
        } else if data == nil {
            Console.writeLine("(The demo's index was in a temporary folder; run `searchlight demo --data DIR` to keep it.)")
        }
    }
}

extension DemoCommand {
    /// The app-database half of the demo, WACoreDataSpotlight's `pod try` searches: an HR
    /// app's Core Data store ingested through its mapping, searched for "Marian Paul" and
    /// "employee", and the first result resolved back to its record.
    func ingestDemoApp(folder: String, kept: Bool) throws {
        let store = (folder as NSString).appendingPathComponent("HR.sqlite")
        if !FileManager.default.fileExists(atPath: store) { try DemoApps.makeHRStore(at: store) }
        let ingest = ["HR.sqlite", "--mapping", DemoApps.hrMapping.path, "--model", DemoApps.hrModel.path, "--data", folder]
        let data = kept ? folder : nil
        Console.writeLine("\n$ searchlight ingest " + ([Self.quoted(store), "--mapping", Self.quoted(DemoApps.hrMapping.path), "--model", Self.quoted(DemoApps.hrModel.path)]).joined(separator: " ")
            + Self.dataOption(data))
        var arguments = ingest
        arguments[0] = store
        try IngestCommand(arguments: try ParsedArguments(arguments[...], spec: IngestCommand.spec)).run()
        let index = try SearchIndex(path: DataDirectory(path: folder).indexPath, mode: .existing)
        var first: String?
        for query in ["Marian Paul", "employee"] {
            Console.writeLine("\n$ searchlight search \"\(query)\"" + Self.dataOption(data))
            let response = try index.search(SearchRequest(query, limit: 3, platform: .ios, installed: [], snippets: true))
            if first == nil { first = response.hits.first?.item.uniqueIdentifier }
            Console.writeStyled(SearchResultsSummary(response: response, highlight: Console.isTerminal).text)
        }
        guard let first else { return }
        Console.writeLine("\n$ searchlight resolve \(Self.quoted(first))" + Self.dataOption(data))
        try ResolveCommand(arguments: try ParsedArguments([first, "--data", folder][...], spec: ResolveCommand.spec)).run()
    }

    /// ` --data DIR` for the commands shown when the demo's folder is kept, so that they
    /// paste and run; nothing for a temporary folder (gone when the demo ends).
    static func dataOption(_ data: String?) -> String { data.map { " --data " + quoted($0) } ?? "" }

    /// A word as a POSIX shell reads it back: as is when it is plain, else in single quotes.
    static func quoted(_ word: String) -> String {
        let plain = !word.isEmpty && word.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || "/._-:@+=,".unicodeScalars.contains($0) }
        return plain ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// Commands to try on the demo web while `--serve` keeps it up: its hosts resolve to
    /// loopback, so each needs `--resolve`, the demo CA and `--allow-private`.
    static func tryLines(port: UInt16, data: String) -> [String] {
        func reach(_ host: String) -> String {
            "--resolve \(host):\(port):127.0.0.1 --cacert \(DemoWeb.caFile) --allow-private"
        }
        let friends = "friends.demo.test", shop = "shop.demo.test"
        return [
            "searchlight validate https://\(friends):\(port)/people/becky \(reach(friends))",
            "searchlight extract https://\(shop):\(port)/ --explain \(reach(shop))",
            "searchlight crawl https://\(friends):\(port)/ --data \(data) --delay 0 \(reach(friends))",
            "searchlight status --data \(data)",
        ]
    }

    /// The options this command reads.
    enum Option {
        static let data = OptionSpec.value("--data", "dir", help: "Keep the demo's data folder here (default: a temporary folder, removed after).")
        static let serve = OptionSpec.flag("--serve", help: "Then serve the demo index and its search page until Ctrl-C; prints the page's address.")
    }
}
