import Crawl
import Foundation
import JSON

/// `searchlight status [--data DIR] [--runs N] [--json]`
struct StatusCommand: Command {
    static let spec = CommandSpec(
        name: "status",
        abstract: "Show what the data folder holds: index, frontier, the running crawl and the last runs.",
        discussion: """
            Items in the index (by source, and how many have expired), URLs the frontier knows
            and how many are due, failing, gone or excluded, on how many hosts; whether a crawl
            run holds the folder now, and since when; and the summaries of the last runs from
            DIR/runs. Reads only, so it is safe while a crawl runs.
            """,
        options: [
            DataDirectory.option,
            StoreOption.option,
            Option.runs,
            Option.json,
        ],
        examples: ["searchlight status", "searchlight status --data /srv/searchlight/crawl-data --json"])

    var data: DataDirectory
    var store: StoreOption
    var runs: Int
    var json: Bool

    init(arguments: ParsedArguments) throws(UsageError) {
        data = DataDirectory(arguments)
        store = try StoreOption(arguments)
        runs = try arguments.int(Option.runs, in: 0...1000) ?? 5
        json = arguments.flag(Option.json)
    }

    func run() throws {
        if let shared = try store.open() {
            let status = try shared.status(dataDirectory: data.path, runs: runs)
            Console.write(json ? JSONWriter.string(status.json, style: .pretty) + "\n" : status.summary)
            return
        }
        guard FileManager.default.fileExists(atPath: data.path) else {
            throw CommandFailure("no data folder at \(data.path): run `searchlight crawl` first, or give --data")
        }
        let status = try CrawlStatus.read(dataDirectory: data.path, runs: runs)
        Console.write(json ? JSONWriter.string(status.json, style: .pretty) + "\n" : status.summary)
    }
}

extension StatusCommand {
    /// The options this command reads.
    enum Option {
        static let runs = OptionSpec.value("--runs", "n", help: "Show this many of the last runs (default 5).")
        static let json = OptionSpec.flag("--json", help: "Print the status as JSON.")
    }
}
