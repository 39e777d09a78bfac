import Fetch
import Foundation
import JSON
import Markup
import Render
import WebURL

/// `searchlight extract FILE|URL [--base-url URL] [--json]`
struct ExtractCommand: Command {
    static let spec = CommandSpec(
        name: "extract",
        abstract: "Show the app, deep-link and structured markup of one HTML page.",
        discussion: """
            Reads a local HTML file, or fetches an http(s) URL once (following redirects),
            and prints what Searchlight extracts from it: title and description, robots
            directives, Smart App Banner, App Links, Twitter app card, ios-app:// and
            android-app:// alternates, Open Graph, schema.org (JSON-LD and microdata),
            outlinks, and warnings about anything broken. With --render, a fetched page is
            also rendered in headless Chromium (its scripts' requests made under the crawler's
            rules) and what the browser adds is said first: a banner, JSON-LD or text that
            only scripts write.
            """,
        arguments: [ArgumentSpec(name: "file-or-url", help: "An HTML file, or an http(s) URL to fetch once.")],
        options: [
            Option.baseUrl,
            Option.contentType,
            Option.json,
            Option.explain,
            Option.render,
            CrawlCommand.Option.renderTimeout.spec,
        ] + FetchOptions.specs,
        examples: [
            "searchlight extract Tests/MarkupTests/Fixtures/families/recipe.html --base-url https://recipes.example/lemon-tart",
            "searchlight extract https://recipes.example/lemon-tart --json",
            "searchlight extract https://app.example/recipes/42 --render",
        ])

    var source: String
    var baseURL: WebURL?
    var contentType: String?
    var json: Bool
    var explain: Bool
    var render: Bool
    /// The longest a render may take, as the crawl's `--render-timeout`.
    var renderTimeout: Double
    var fetch: FetchOptions

    init(arguments: ParsedArguments) throws(UsageError) {
        source = arguments.positionals[0]
        if let base = arguments.value(Option.baseUrl) {
            guard let url = WebURL(base) else { throw UsageError("--base-url needs an absolute http(s) URL, not '\(base)'") }
            baseURL = url
        }
        contentType = arguments.value(Option.contentType)
        json = arguments.flag(Option.json)
        explain = arguments.flag(Option.explain)
        render = arguments.flag(Option.render)
        renderTimeout = try arguments.value(CrawlCommand.Option.renderTimeout)
        fetch = try FetchOptions(arguments)
        let lower = source.lowercased()
        if render, !(lower.hasPrefix("http://") || lower.hasPrefix("https://")) {
            throw UsageError("--render renders a fetched page: give an http(s) URL")
        }
    }

    func run() throws {
        var markup: PageMarkup
        var rendered: JSONValue?
        let lower = source.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            (markup, rendered) = try fetchAndExtract()
        } else {
            guard let data = FileManager.default.contents(atPath: source) else {
                throw CommandFailure("cannot read '\(source)': no such file, or not readable")
            }
            markup = MarkupExtractor().extract(Array(data), url: baseURL, response: .init(contentType: contentType))
        }
        if json {
            var object = markup.json.objectValue ?? JSONObject()
            if explain { object["mainTextBlocks"] = markup.mainText.explanationJSON }
            if let rendered {
                object["render"] = rendered
            } else if case .render(let reason) = RenderRule.decide(.auto, markup: markup, noindex: markup.robots.forbidsIndexing(at: Date())) {
                // What `crawl --render auto` would do with this page.
                object["render"] = ["wouldRender": .string(reason.rawValue)]
            }
            Console.writeLine(JSONWriter.string(.object(object), style: .pretty))
        } else {
            Console.write(PageMarkupSummary(markup, explain: explain).text)
        }
    }

    /// The page's markup (rendered, with --render, when the render succeeds) and, with
    /// --render, what the render did.
    private func fetchAndExtract() throws -> (PageMarkup, JSONValue?) {
        guard WebURL(source) != nil else { throw UsageError("'\(source)' is not a valid http(s) URL") }
        var configuration = FetchConfiguration(userAgent: UserAgent.string)
        fetch.apply(to: &configuration)
        let client = HTTPClient(configuration: configuration)
        defer { client.shutdown() }
        let (response, redirects) = client.fetch(source, maximumRedirects: 10)
        if let error = response.error { throw CommandFailure("fetching \(response.request.url) failed: \(error.message)") }
        guard (200..<300).contains(response.status) else {
            throw CommandFailure("fetching \(response.request.url) failed: HTTP \(response.status)")
        }
        for hop in redirects { Console.error("note: redirected to \(hop)") }
        let info = MarkupExtractor.ResponseInfo(
            contentType: contentType ?? response.contentType, robotsTags: response.headers.all("X-Robots-Tag"),
            contentLanguage: response.headers.first("Content-Language"))
        let url = WebURL(response.request.url)
        let markup = MarkupExtractor().extract(response.body, url: url, response: info)
        guard render, let url else { return (markup, nil) }
        var rendering = Renderer.Configuration()
        rendering.timeout = renderTimeout
        let renderer = Renderer(configuration: rendering, subresources: CrawlerSubresources(configuration: configuration, productToken: "searchlightbot"))
        defer { renderer.browser.kill() }
        let outcome = renderer.render(url, document: RenderDocument(status: response.status, headers: response.headers, body: response.body))
        var object = JSONObject([
            ("failure", outcome.failure.map { .string($0.rawValue) } ?? .null), ("seconds", JSONValue((outcome.seconds * 1000).rounded() / 1000)),
            ("fetched", JSONValue(outcome.fetched)),
            ("refused", .object(JSONObject(outcome.refused.sorted { $0.key.rawValue < $1.key.rawValue }.map { ($0.key.rawValue, JSONValue($0.value)) }))),
        ])
        guard let html = outcome.html else {
            Console.error("note: the page could not be rendered (\(outcome.failure?.rawValue ?? "render-failed")); showing its HTML as sent")
            return (markup, .object(object))
        }
        let after = MarkupExtractor().extract(html, url: url, response: .init(
            contentType: "text/html; charset=utf-8", robotsTags: info.robotsTags, contentLanguage: info.contentLanguage))
        let notes = RenderDifference.notes(static: markup, rendered: after)
        object["notes"] = .array(notes.map(JSONValue.string))
        if !json {
            Console.error("note: rendered in \(String(format: "%.2f", outcome.seconds)) s, \(outcome.fetched) requests made"
                + (notes.isEmpty ? "; scripts add nothing Searchlight reads" : ""))
            for note in notes { Console.error("note: " + note) }
        }
        return (after, .object(object))
    }
}

extension ExtractCommand {
    /// The options this command reads.
    enum Option {
        static let baseUrl = OptionSpec.value("--base-url", "url", help: "The page's URL, for resolving relative links in a file.\nA fetched URL is its own base.")
        static let contentType = OptionSpec.value("--content-type", "type", help: "The Content-Type to assume for a file (its charset counts).")
        static let json = OptionSpec.flag("--json", help: "Print the full PageMarkup as JSON.")
        static let explain = OptionSpec.flag("--explain", help: "Show each block of text and why it is, or is not, part of the main text.")
        static let render = OptionSpec.flag("--render", help: "Also render the fetched page in headless Chromium and show what scripts add.")
    }
}
