import Foundation
import Ingest
import ItemMapping
import Items
import JSON
import SearchIndex
import WebURL

/// `searchlight ingest DB --mapping FILE [--model PATH] [--data DIR] [--watch] [--server URL --key KEY] [--json]`
struct IngestCommand: Command {
    static let spec = CommandSpec(
        name: "ingest",
        abstract: "Index an app's database through {#keyPath#} mappings, then follow its changes.",
        discussion: """
            DB is a Core Data SQLite store or a plain SQLite file, opened read-only. The
            mapping file (JSON) says how each entity's records become items:
            uniqueIdentifierPattern and titlePattern (or attributeSet.title), with
            {#attribute#}, {#relationship.attribute#} and {#toMany.@count#} / @sum / @min / @max
            / @avg placeholders (README: "Mappings"). The first run indexes every mapped
            record; later runs apply what changed: new, changed (Z_OPT, or the row's content)
            and deleted rows, and items whose placeholders read a related record that changed.
            Batches carry client state: a run killed at any point resumes without indexing a
            record twice or missing a delete. With --model, names come from the app's
            .xcdatamodeld; without it, from the store's columns (to-many paths need the model).
            """,
        arguments: [ArgumentSpec(name: "database", help: "The app's SQLite store.")],
        options: [
            Option.mapping, Option.model, DataDirectory.option, StoreOption.option, OwnerOption.option, Option.watch, Option.server, Option.key,
            Option.cacert,
            Option.json, Option.progress,
        ],
        examples: [
            "searchlight ingest HR.sqlite --mapping hr-mapping.json --model HR.xcdatamodeld",
            "searchlight ingest HR.sqlite --mapping hr-mapping.json --watch",
            "searchlight ingest app.db --mapping map.json --server https://search.example --key slk_…",
        ])

    var database: String
    var mapping: String
    var model: String?
    var data: DataDirectory
    var store: StoreOption
    var watch: Bool
    var server: String?
    var key: String?
    var caCertificates: String?
    var json: Bool
    var progress: ProgressDisplay.Mode
    var owner: OwnerOption

    init(arguments: ParsedArguments) throws(UsageError) {
        database = arguments.positionals[0]
        guard let mapping = arguments.value(Option.mapping) else { throw UsageError("--mapping FILE is required") }
        self.mapping = mapping
        model = arguments.value(Option.model)
        data = DataDirectory(arguments)
        store = try StoreOption(arguments)
        watch = arguments.flag(Option.watch)
        server = arguments.value(Option.server)
        key = arguments.value(Option.key) ?? ProcessInfo.processInfo.environment["SEARCHLIGHT_KEY"]
        caCertificates = arguments.value(Option.cacert)
        json = arguments.flag(Option.json)
        progress = .auto
        if let mode = arguments.value(Option.progress) {
            guard let parsed = ProgressDisplay.Mode(rawValue: mode), ProgressDisplay.lineModes.contains(parsed) else {
                throw UsageError("--progress must be \(ProgressDisplay.lineModes.map(\.rawValue).joined(separator: ", "))")
            }
            progress = parsed
        }
        owner = try OwnerOption(arguments)
        if let server {
            if owner.name != nil { throw UsageError("--owner does not go with --server: the items belong to the key's owner") }
            guard WebURL(server) != nil else { throw UsageError("--server needs an http(s) URL, not '\(server)'") }
            guard key != nil else { throw UsageError("--server needs --key (or $SEARCHLIGHT_KEY)") }
            if store.url != nil { throw UsageError("--server and --store cannot be combined: the server writes to its own store") }
        }
    }

    func run() throws {
        let mappings: MappingSet
        do {
            mappings = try MappingFile.load(path: mapping)
        } catch {
            throw UsageError.input("\(error)")
        }
        var dataModel: DataModel?
        if let model {
            do {
                dataModel = try CoreDataModelReader.read(path: model)
            } catch {
                throw UsageError.input("--model \(error)")
            }
        }
        let source: SourceDatabase
        do {
            source = try SourceDatabase(path: database, model: dataModel)
        } catch {
            throw UsageError.input("cannot read \(database) as an SQLite database: \(error)")
        }
        let bound: [BoundMapping]
        do {
            bound = try mappings.bind(to: source.schema, file: mapping)
        } catch {
            throw UsageError.input("\(error)")
        }
        try data.create()
        let state = try IngestState(path: data.ingestPath)
        do {
            try state.register(name: mappings.source, database: Self.absolute(database), model: model.map(Self.absolute), mapping: Self.absolute(mapping),
                               owner: owner.name)
        } catch let change as IngestState.OwnerChange {
            throw UsageError(change.description)
        }
        let sink: any IngestSink
        if let server, let key {
            sink = try RemoteBatchSink(server: server, key: key, caCertificates: caCertificates)
        } else {
            let items = try store.items(data)
            var local = IndexBatchSink(clientState: { try items.clientState(batch: $0) }, commit: { try items.commit($0, now: Date()) })
            local.owner = owner.name
            sink = local
        }
        let ingestor = Ingestor(database: source, mappings: mappings, bound: bound, state: state, sink: sink)
        ingestor.owner = owner.name
        try report(try run(ingestor))
        guard watch else { return }
        // Ctrl-C or SIGTERM stops between runs; a batch being sent is committed or not at all.
        StopSignal.install()
        var version = try source.dataVersion()
        var files = Self.signature(of: database)
        while !StopSignal.requested {
            StopSignal.wait(until: Date().addingTimeInterval(0.2))
            if StopSignal.requested { break }
            let nextVersion = try source.dataVersion()
            let nextFiles = Self.signature(of: database)
            guard nextVersion != version || nextFiles != files else { continue }
            version = nextVersion
            files = nextFiles
            try report(try run(ingestor))
        }
    }

    /// One run, its progress shown on standard error as `--progress` says and cleared
    /// before the report.
    private func run(_ ingestor: Ingestor) throws -> IngestReport {
        // Called on this thread only: the display is this run's alone.
        var shown = ProgressDisplay(mode: progress)
        ingestor.progress = shown.isOn ? { shown.show($0) } : nil
        defer { shown.clear() }
        return try ingestor.run()
    }

    private func report(_ report: IngestReport) throws {
        if json {
            // Indented like every --json output; one line per run with --watch (JSON Lines,
            // for a log reader).
            Console.writeLine(JSONWriter.string(report.json, style: watch ? .compact : .pretty))
            return
        }
        let skipped = report.skipped.values.reduce(0, +)
        var line = "\(report.source): \(report.created) created, \(report.updated) updated, \(report.deleted) deleted, \(report.unchanged) unchanged"
        if skipped > 0 {
            line += ", \(skipped) skipped (" + report.skipped.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue) \($0.value)" }
                .joined(separator: ", ") + ")"
        }
        // Rows of every table the mapping reads (records and the rows their placeholders
        // reach), so the counts are rows, not items.
        line += report.full
            ? String(format: " — every mapped record rendered; %d rows read in %.2f s", report.scannedRows, report.seconds)
            : String(format: " — %d rows read, %d of them new, changed or gone, in %.2f s", report.scannedRows, report.changedRows, report.seconds)
        Console.writeLine(line)
        if report.resynchronised { Console.writeLine("note: the index did not hold what the ingest state said; every item was written again") }
        for example in report.skipExamples { Console.writeLine("  skipped \(example)") }
    }

    /// Sizes and modification times of the store and its WAL: a save changes one of them
    /// even when SQLite's data version is not visible to this connection yet.
    private static func signature(of path: String) -> [String] {
        [path, path + "-wal"].map { file in
            let attributes = try? FileManager.default.attributesOfItem(atPath: file)
            let size = (attributes?[.size] as? NSNumber)?.int64Value ?? -1
            let modified = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            return "\(size)/\(modified)"
        }
    }

    static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
}

extension IngestCommand {
    /// The options this command reads.
    enum Option {
        static let mapping = OptionSpec.value("--mapping", "file", help: "The mapping file (JSON): how records become items.", required: true)
        static let model = OptionSpec.value("--model", "path", help: "The app's data model: .xcdatamodeld, .xcdatamodel or its contents file.")
        static let watch = OptionSpec.flag("--watch", help: "Keep following the database and apply each save within a second.")
        static let server = OptionSpec.value("--server", "url", help: "Send the batches to a running `searchlight serve` instead of the local index.")
        static let key = OptionSpec.value("--key", "key", help: "With --server: the API key (default: $SEARCHLIGHT_KEY).")
        static let cacert = OptionSpec.value("--cacert", "file", help: "With --server over https: trust the CA certificates in this PEM file.")
        static let json = OptionSpec.flag("--json", help: "Print each run's report as JSON.")
        static let progress = OptionSpec.value(
            "--progress", "auto|line|none",
            help: "Progress on standard error (rows read, items changed, rate, time left): auto (a line on a terminal),\n"
                + "line (also every 10 s elsewhere), none.")
    }
}
