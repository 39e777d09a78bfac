import Crawl
import EmbeddedStore
import Fetch
import Foundation
import ItemMapping
import Glibc
import JSON
import PostgresStore
import Render
import StoreSeams
import Synchronization
import TextUtilities
import WebRules
import WebURL

/// `searchlight crawl [SEED_URL ...] [--seeds FILE] [--data DIR] …`
struct CrawlCommand: Command {
    static let spec = CommandSpec(
        name: "crawl",
        abstract: "Crawl seed URLs and due pages into the index.",
        discussion: """
            Fetches robots.txt first (searchlightbot's group, else *), reads sitemaps, fetches the
            association files of https hosts, then pages: due revisits first, then new URLs, sitemap
            URLs and shallow pages before deep ones, at most --per-host connections and one request
            per --delay seconds to each host. Pages are extracted, indexed (or removed when they are
            gone or noindex), archived as WARC in DIR/warc, and the run report goes to DIR/runs.
            Without seeds, the run takes what the frontier has due: each fetched URL comes back
            after its own interval (an hour to 30 days, shorter when the page changes, longer when
            it does not), sooner when its sitemap lastmod is newer. Items not confirmed for
            --expire-after drop out of results; a page failing with timeouts or 5xx keeps its item
            for --grace. A second run on the same data folder exits at once (status 0) saying which
            run holds it; a lock left by a killed run is taken over. Ctrl-C or SIGTERM finishes the
            pages in flight, commits and stops. With --every the command stays in the foreground
            and starts a run on that interval, for containers and other setups without cron.
            """,
        arguments: [ArgumentSpec(name: "seed-url", help: "Where to start (added to --seeds).", isOptional: true, isRepeating: true)],
        options: [
            Option.seeds,
            DataDirectory.option,
            Option.maxPages,
            Option.maxDepth.spec,
            Option.maxTime,
            Option.every,
            Option.continuous,
            Option.commitEvery.spec,
            Option.expireAfter.spec,
            Option.grace.spec,
            Option.maxPagesPerHost.spec,
            Option.concurrency.spec,
            Option.perHost.spec,
            Option.delay.spec,
            Option.maxBody.spec,
            Option.scope,
            Option.include,
            Option.exclude,
            Option.keepTrackingParameters,
            Option.noSitemaps,
            Option.noTrapDetection,
            Option.noWarc,
            Option.render,
            Option.renderTimeout.spec,
            Option.renderConcurrency.spec,
            Option.refetch,
            Option.refetchAll,
            Option.mapping,
            Option.json,
            Option.progress,
            StoreOption.option,
            Option.lease.spec,
        ] + FetchOptions.specs,
        examples: [
            "searchlight crawl https://recipes.example/ --max-pages 500",
            "searchlight crawl --seeds seeds/default.txt --delay 2 --json",
            "searchlight crawl --every 1h --max-time 50m",
            "searchlight crawl --store postgres://searchlight@db.internal/searchlight --data /srv/worker-1",
        ])

    var configuration: CrawlConfiguration
    var store: StoreOption
    var leaseSeconds: Double
    var json: Bool
    var progress: ProgressDisplay.Mode
    /// Seconds between the starts of two runs, with `--every`.
    var every: TimeInterval?

    init(arguments: ParsedArguments) throws(UsageError) {
        let data = DataDirectory(arguments)
        var fetch = FetchConfiguration(userAgent: UserAgent.string)
        try FetchOptions(arguments).apply(to: &fetch)
        fetch.maximumBodyBytes = try arguments.value(Option.maxBody)
        var configuration = CrawlConfiguration(dataDirectory: data.path, fetch: fetch)
        configuration.software = "Searchlight/\(Searchlight.version)"
        var seeds = arguments.positionals
        let defaultFile = seeds.isEmpty && FileManager.default.fileExists(atPath: Self.defaultSeeds) ? Self.defaultSeeds : nil
        if let file = arguments.value(Option.seeds) ?? defaultFile {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw UsageError("cannot read the seeds file '\(file)'")
            }
            seeds += Self.seeds(in: text)
        }
        configuration.seeds = try seeds.map { seed throws(UsageError) -> WebURL in
            guard let url = WebURL(seed) else { throw UsageError("'\(seed)' is not an absolute http(s) URL") }
            return url
        }
        configuration.maximumPages = try arguments.int(Option.maxPages, in: 1...Int.max) ?? Int.max
        configuration.maximumDepth = try arguments.value(Option.maxDepth)
        configuration.maximumTime = try arguments.duration(Option.maxTime, in: 1...(365 * 86_400)) ?? .infinity
        every = try arguments.duration(Option.every, in: 1...(365 * 86_400))
        configuration.continuous = arguments.flag(Option.continuous)
        if configuration.continuous, every != nil { throw UsageError("--continuous keeps one run alive; --every starts runs on an interval: give one of them") }
        configuration.itemLifetime = try arguments.value(Option.expireAfter)
        configuration.failureGracePeriod = try arguments.value(Option.grace)
        configuration.maximumPagesPerHost = try arguments.value(Option.maxPagesPerHost)
        configuration.concurrency = try arguments.value(Option.concurrency)
        configuration.perHostConnections = try arguments.value(Option.perHost)
        configuration.delay = try arguments.value(Option.delay)
        if let scope = arguments.value(Option.scope) {
            guard let mode = CrawlScope.Mode(rawValue: scope) else { throw UsageError("--scope must be hosts, domain or any") }
            configuration.scope = mode
        }
        configuration.include = arguments.values(Option.include)
        configuration.exclude = arguments.values(Option.exclude)
        configuration.keepsTrackingParameters = arguments.flag(Option.keepTrackingParameters)
        configuration.readsSitemaps = !arguments.flag(Option.noSitemaps)
        configuration.trapDetection = !arguments.flag(Option.noTrapDetection)
        configuration.writesWARC = !arguments.flag(Option.noWarc)
        do {
            configuration.render = try RenderPolicy(parsing: arguments.values(Option.render))
        } catch {
            throw UsageError(error.description)
        }
        configuration.renderer.timeout = try arguments.value(Option.renderTimeout)
        configuration.commitInterval = try arguments.value(Option.commitEvery)
        configuration.renderer.concurrency = try arguments.value(Option.renderConcurrency)
        let refetch = try arguments.values(Option.refetch).map { text throws(UsageError) -> WebURL in
            guard let url = WebURL(text) else { throw UsageError("--refetch '\(text)' is not an absolute http(s) URL") }
            return url
        }
        if arguments.flag(Option.refetchAll) {
            configuration.refetch = [.all]
        } else if !refetch.isEmpty {
            // As the frontier keys them: tracking parameters and fragments dropped.
            let keys = FrontierKey(keepsTrackingParameters: configuration.keepsTrackingParameters)
            configuration.refetch = [.urls(refetch.map(keys.key(for:)))]
        }
        if let file = arguments.value(Option.mapping) {
            do {
                configuration.mappings = try MappingFile.load(path: file)
            } catch {
                throw UsageError.input("--mapping \(error)")
            }
        }
        self.configuration = configuration
        store = try StoreOption(arguments)
        leaseSeconds = try arguments.value(Option.lease)
        json = arguments.flag(Option.json)
        if let mode = arguments.value(Option.progress) {
            guard let parsed = ProgressDisplay.Mode(rawValue: mode) else {
                throw UsageError("--progress must be \(ProgressDisplay.Mode.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            progress = parsed
        } else {
            progress = .auto
        }
    }

    static let defaultSeeds = "seeds/default.txt"

    /// The URLs of a seeds file: one per line, blank lines and `#` comments ignored.
    static func seeds(in text: String) -> [String] {
        text.split(whereSeparator: \.isNewline).compactMap { line in
            let value = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first?
                .trimmingCharacters(in: .whitespaces) ?? ""
            return value.isEmpty ? nil : value
        }
    }

    func run() throws {
        // Nothing to start from and no frontier to go on with: a mistake (a cron line run in
        // the wrong folder), not an empty success, and no data folder is made for it.
        if configuration.seeds.isEmpty, store.url == nil, !FileManager.default.fileExists(atPath: DataFolder(configuration.dataDirectory).frontierPath) {
            let shipped = FileManager.default.fileExists(atPath: Self.defaultSeeds) ? " (\(Self.defaultSeeds) lists no URL: add your sites)" : ""
            throw CommandFailure("nothing to crawl: no seed URL\(shipped) and no frontier at \(configuration.dataDirectory) to go on from. "
                + "Give SEED_URL, --seeds FILE or a \(Self.defaultSeeds) in this folder, or --data the folder an earlier crawl wrote")
        }
        try DataDirectory(path: configuration.dataDirectory).create()
        guard let every else {
            var configuration = configuration
            if configuration.continuous {
                configuration.wakeUp = store.url.map { PostgresWakeUp(url: $0) } ?? FolderWakeUp(dataDirectory: configuration.dataDirectory)
            }
            try runOnce(configuration)
            return
        }
        // Each run ends by the next one's start unless --max-time says otherwise.
        var each = configuration
        if each.maximumTime == .infinity { each.maximumTime = every }
        StopSignal.install()
        while !StopSignal.requested {
            let started = Date()
            do {
                try runOnce(each)
            } catch {
                // One failed run (a full disk, a damaged file) does not end the schedule.
                Console.error("error: \(error)")
            }
            guard !StopSignal.requested else { break }
            let next = started.addingTimeInterval(every)
            if !json { Console.writeLine("Next run at \(ISO8601.string(fromSeconds: next.timeIntervalSince1970)).") }
            StopSignal.wait(until: next)
        }
        if StopSignal.exitStatus != 0 { throw ExitCode(status: StopSignal.exitStatus) }
    }

    private func runOnce(_ configuration: CrawlConfiguration) throws {
        let run = CrawlRun(configuration: configuration, store: store, leaseSeconds: leaseSeconds)
        guard let report = try run.run(progress: progress) else { return }
        Console.write(json ? JSONWriter.string(report.json, style: .pretty) + "\n" : report.summary)
        // Stopped by Ctrl-C: the status a shell expects (130), once the report is out.
        if report.stoppedBy == "signal", every == nil, StopSignal.exitStatus != 0 { throw ExitCode(status: StopSignal.exitStatus) }
        // Nothing could be reached: a scheduler or script must see it.
        if report.reachedNothing, every == nil, !configuration.continuous { throw ExitCode.failure }
    }
}

extension CrawlCommand {
    /// What a run does unless told otherwise: the crawl's own defaults, shown in the help.
    static let defaults = CrawlConfiguration(dataDirectory: DataDirectory.defaultPath, fetch: FetchConfiguration(userAgent: UserAgent.string))

    /// The options this command reads.
    enum Option {
        static let seeds = OptionSpec.value("--seeds", "file", help: "A file of seed URLs, one per line, # comments (default: seeds/default.txt when no seed URL is given and it exists).")
        static let maxPages = OptionSpec.value("--max-pages", "n", help: "Fetch at most this many pages in this run.")
        static let maxDepth = Setting.whole("--max-depth", help: "Follow links at most this many steps from a seed", in: 0...1000,
                                            default: defaults.maximumDepth)
        static let maxTime = OptionSpec.value("--max-time", "duration", help: "Stop after this long (90s, 50m, 2h…), finishing pages in flight.")
        static let every = OptionSpec.value("--every", "duration", help: "Stay in the foreground and run on this interval (15m, 1h, 1d…); each run stops by the next.")
        static let continuous = OptionSpec.flag(
            "--continuous", help: "Keep one run alive: fetch whatever is due, sleep until the next URL is due, and wake at once when\n"
                + "serve --indexnow makes URLs due (the data folder's pipe, the shared store's LISTEN). Ends on SIGINT/SIGTERM or --max-time.")
        static let commitEvery = Setting.number("--commit-every", "seconds", help: "Commit what was fetched at least this often (a batch of 256 pages commits sooner)",
                                                in: 0.1...60, default: defaults.commitInterval)
        static let expireAfter = Setting.duration("--expire-after", help: "Items not confirmed for this long drop out of results",
                                                  in: 3600...(10 * 365 * 86_400), default: defaults.itemLifetime)
        static let grace = Setting.duration("--grace", help: "How long a page failing transiently keeps its item", in: 0...(365 * 86_400),
                                            default: defaults.failureGracePeriod)
        static let maxPagesPerHost = Setting.whole("--max-pages-per-host", help: "Fetch at most this many pages of one host per run",
                                                   in: 1...Int.max, default: defaults.maximumPagesPerHost)
        static let concurrency = Setting.whole("--concurrency", help: "Requests in flight at once", in: 1...1024, default: defaults.concurrency)
        static let perHost = Setting.whole("--per-host", help: "Connections to one host at once", in: 1...64, default: defaults.perHostConnections)
        static let delay = Setting.number("--delay", "seconds", help: "Time between two requests to one host; robots.txt can lengthen it",
                                          in: 0...3600, default: defaults.delay)
        static let maxBody = Setting.whole("--max-body", "bytes", help: "Largest body accepted, after decompression", in: 1024...(1 << 30),
                                           default: defaults.fetch.maximumBodyBytes, shown: "\(defaults.fetch.maximumBodyBytes >> 20) MiB")
        static let scope = OptionSpec.value("--scope", "hosts|domain|any", help: "Stay on the seeds' hosts (default), their registrable domains, or go anywhere.")
        static let include = OptionSpec.value("--include", "regex", help: "Only crawl URLs matching this regular expression.", repeatable: true)
        static let exclude = OptionSpec.value("--exclude", "regex", help: "Never crawl URLs matching this regular expression.", repeatable: true)
        static let keepTrackingParameters = OptionSpec.flag("--keep-tracking-parameters", help: "Keep utm_*, fbclid, gclid… in URLs.")
        static let noSitemaps = OptionSpec.flag("--no-sitemaps", help: "Do not read sitemaps.")
        static let noTrapDetection = OptionSpec.flag(
            "--no-trap-detection", help: "Fetch every URL pattern, even those judged endless (calendars); --max-pages-per-host still bounds each host.")
        static let noWarc = OptionSpec.flag("--no-warc", help: "Do not write WARC files.")
        static let render = OptionSpec.value(
            "--render", "auto|never|always|HOST=MODE",
            help: "Render pages in headless Chromium: auto (default) only client-rendered shells, never, always;\n"
                + "HOST=MODE for one host, *.DOMAIN=MODE for a domain and its subdomains.", repeatable: true)
        static let renderTimeout = Setting.number("--render-timeout", "seconds", help: "Longest a page's render may take", in: 1...120,
                                                  default: defaults.renderer.timeout)
        static let renderConcurrency = Setting.whole("--render-concurrency", help: "Pages rendered at once", in: 1...16,
                                                     default: defaults.renderer.concurrency)
        static let json = OptionSpec.flag("--json", help: "Print the run report as JSON.")
        static let progress = OptionSpec.value(
            "--progress", "auto|line|hosts|none",
            help: "Progress on standard error: auto (a line on a terminal), line (also every 10 s elsewhere),\n"
                + "hosts (the line and the ten busiest hosts' stage, pages, queue and back-off), none.")
        static let refetch = OptionSpec.value(
            "--refetch", "url", help: "Fetch this known URL in this run whatever its schedule (conditional GET kept).", repeatable: true)
        static let refetchAll = OptionSpec.flag("--refetch-all", help: "Make every known URL due now.")
        static let mapping = OptionSpec.value(
            "--mapping", "file", help: "Templates for pages' schema.org objects ({\"entity\": \"Recipe\", \"titlePattern\": \"{#name#} by {#author.name#}\"…}).")
        static let lease = Setting.duration(
            "--lease", help: "With --store: how long a host or URL this worker claimed stays its own without a word from it;\n"
                + "a killed worker's work goes to the others after this", in: 2...3600, default: 60)
    }
}
