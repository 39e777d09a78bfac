import Crawl
import EmbeddedStore
import Fetch
import Foundation
import Items
import JSON
import Render
import SearchIndex
import WebURL

/// `searchlight validate URL [--platform ios|android] [--installed APP_ID]... [--data DIR] [--json] [fetch options]`
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
            """,
        arguments: [ArgumentSpec(name: "url", help: "The http(s) URL to check.")],
        options: [Option.platform, Option.installed, DataDirectory.option, Option.render, CrawlCommand.Option.renderTimeout.spec, Option.json]
            + FetchOptions.specs,
        examples: [
            "searchlight validate https://recipes.example/lemon-tart",
            "searchlight validate https://shop.example/p/42 --platform android --json",
        ])

    var url: WebURL
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
        if json {
            Console.writeLine(JSONWriter.string(report.json, style: .pretty))
        } else {
            Console.write(ValidationSummary(report: report).text)
        }
        if !report.passed { throw ExitCode.failure }
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
    }
}
