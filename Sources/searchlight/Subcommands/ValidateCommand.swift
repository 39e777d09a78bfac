import Crawl
import EmbeddedStore
import Fetch
import Foundation
import Items
import JSON
import Render
import SearchIndex
import WebURL

/// `searchlight validate URL [--query Q] [--platform ios|android] [--installed APP_ID]... [--data DIR] [--json] [fetch options]`
struct ValidateCommand: Command {
    static let spec = CommandSpec(
        name: "validate",
        abstract: "Explain whether a page would be indexed, and what a tap on it would do.",
        discussion: """
            Fetches the URL as the crawler would and reports, with the evidence for each
            verdict: robots.txt (the group, rule and line that decided), every redirect hop,
            the status, content type and charset, noindex and canonical, every app and
            structured-markup family with its errors, the apple-app-site-association and
            assetlinks.json files and which component claims the URL, the item that would be
            indexed and the tap action on iOS and Android with the app installed and without.
            Exit status 0 when the page would be indexed with a working app action on the
            platform asked about, 1 when not (the reasons come first), 64 for usage errors.
            With --query, also where the page ranks for that query in the data folder's
            index and why: which words matched in which field and form, the score's parts,
            the results above it, and what keeps it out or down.
            """,
        arguments: [ArgumentSpec(name: "url", help: "The http(s) URL to check.")],
        options: [Option.query, Option.platform, Option.installed, DataDirectory.option, Option.render, CrawlCommand.Option.renderTimeout.spec,
                  Option.json]
            + FetchOptions.specs,
        examples: [
            "searchlight validate https://recipes.example/lemon-tart",
            "searchlight validate https://shop.example/p/42 --platform android --json",
            "searchlight validate https://recipes.example/lemon-tart --query \"lemon tart\"",
        ])

    var url: WebURL
    /// With `--query`: the query whose ranking of the page is explained.
    var query: String?
    var platform: AppTarget.Platform
    var installed: Set<String>
    var data: String?
    var json: Bool
    var fetch: FetchOptions
    var render: RenderMode
    /// The longest a render may take, as the crawl's `--render-timeout`.
    var renderTimeout: Double

    init(arguments: ParsedArguments) throws(UsageError) {
        let text = arguments.positionals[0]
        guard let url = WebURL(text) else { throw UsageError("'\(text)' is not an absolute http(s) URL") }
        self.url = url
        let platformName = arguments.value(Option.platform) ?? "ios"
        guard let platform = AppTarget.Platform(rawValue: platformName) else {
            throw UsageError("--platform must be ios or android, not '\(platformName)'")
        }
        self.platform = platform
        installed = Set(arguments.values(Option.installed))
        data = arguments.value(DataDirectory.option)
        query = arguments.value(Option.query)
        if let query {
            guard !query.trimmingCharacters(in: .whitespaces).isEmpty else { throw UsageError("--query needs the words a person would search for") }
            guard query.count <= SearchRequest.Limits.queryCharacters else {
                throw UsageError("--query is at most \(SearchRequest.Limits.queryCharacters) characters")
            }
        }
        json = arguments.flag(Option.json)
        fetch = try FetchOptions(arguments)
        let mode = arguments.value(Option.render) ?? RenderMode.auto.rawValue
        guard let render = RenderMode(rawValue: mode) else { throw UsageError("--render must be auto, never or always, not '\(mode)'") }
        self.render = render
        renderTimeout = try arguments.value(CrawlCommand.Option.renderTimeout)
    }

    func run() throws {
        var configuration = FetchConfiguration(userAgent: UserAgent.string)
        fetch.apply(to: &configuration)
        let client = HTTPClient(configuration: configuration)
        defer { client.shutdown() }
        var options = PageValidator.Options()
        options.platform = platform
        options.installed = installed
        if let data {
            options.firstURLWithContent = { try FolderContents.firstURL(dataDirectory: data, withContent: $0) }
        }
        options.render = render
        var rendering = Renderer.Configuration()
        rendering.timeout = renderTimeout
        let renderer = render == .never ? nil
            : Renderer(configuration: rendering, subresources: CrawlerSubresources(configuration: configuration, productToken: options.productToken))
        defer { renderer?.browser.kill() }
        options.renderer = renderer
        let report = try PageValidator(downloader: client, options: options).validate(url)
        var ranking: (report: Findability, notes: [String])?
        if let query { ranking = try findability(of: report, query: query) }
        if json {
            Console.writeLine(JSONWriter.string(Self.json(report, ranking), style: .pretty))
        } else {
            Console.write(ValidationSummary(report: report).text)
            if let ranking { Console.write(FindabilitySummary(findability: ranking.report, notes: ranking.notes, data: folder.path).text) }
        }
        if !report.passed { throw ExitCode.failure }
    }

    /// The report as JSON, with the findability (and the live page's notes, `live`) under `findability`.
    private static func json(_ report: ValidationReport, _ findability: (report: Findability, notes: [String])?) -> JSONValue {
        guard let findability, let base = report.json.objectValue, var explained = findability.report.json.objectValue else { return report.json }
        var object = base
        explained["live"] = .array(findability.notes.map(JSONValue.string))
        object["findability"] = .object(explained)
        return .object(object)
    }

    /// The index's answer; a query the index refuses is a usage error. (Through a `Result`:
    /// the same `do`/`catch where` here crashed Swift 6.3's SIL optimizer.)
    private static func place(in index: SearchIndex, of key: ItemKey, _ request: SearchRequest) throws -> Findability {
        let result: Result<Findability, SearchIndexError> = Result { () throws(SearchIndexError) in try index.findability(of: key, for: request) }
        switch result {
        case .success(let found): return found
        case .failure(let error) where error.isClientError: throw UsageError("--query: \(error.message)")
        case .failure(let error): throw error
        }
    }

    private var folder: DataDirectory { DataDirectory(path: data ?? DataDirectory.defaultPath) }

    /// Where the page's item ranks for `query` in the folder's index, and what the live
    /// page says beside it.
    private func findability(of report: ValidationReport, query: String) throws -> (report: Findability, notes: [String]) {
        let folder = self.folder
        guard FileManager.default.fileExists(atPath: folder.indexPath) else {
            throw CommandFailure("--query reads the index of a data folder, and \(folder.path) has none: crawl first, or give --data DIR")
        }
        let index = try SearchIndex(path: folder.indexPath, mode: .existing)
        let identifier = report.item?.uniqueIdentifier ?? report.hops.last?.url ?? url.string
        var request = SearchRequest(query, platform: platform, installed: installed)
        request.limit = 1
        let found = try Self.place(in: index, of: ItemKey(owner: nil, identifier: identifier), request)
        let frontier = try FolderContents.frontierRow(dataDirectory: folder.path, urls: [identifier, url.string])
        return (found, FindabilityCheck.notes(report: report, findability: found, frontier: frontier))
    }
}

extension ValidateCommand {
    /// The options this command reads.
    enum Option {
        static let render = OptionSpec.value(
            "--render", "auto|never|always", help: "Render the page in headless Chromium as the crawl would (auto: client-rendered shells only)\nand say what scripts add.")
        static let platform = OptionSpec.value("--platform", "ios|android", help: "The platform whose app action must work (default ios).")
        static let installed = OptionSpec.value(
            "--installed", "app-id", help: "An app taken as installed for 'with the app' (default: the page's own apps).", repeatable: true)
        static let json = OptionSpec.flag("--json", help: "Print the report as one JSON object.")
        static let query = OptionSpec.value(
            "--query", "words", help: "Also say where the page ranks for these words in the data folder's index, and why.")
    }
}
