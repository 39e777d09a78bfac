import Fetch
import Foundation
import JSON
import Markup
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
            outlinks, and warnings about anything broken.
            """,
        arguments: [ArgumentSpec(name: "file-or-url", help: "An HTML file, or an http(s) URL to fetch once.")],
        options: [
            Option.baseUrl,
            Option.contentType,
            Option.json,
            Option.explain,
        ] + FetchOptions.specs,
        examples: [
            "searchlight extract Tests/MarkupTests/Fixtures/families/recipe.html --base-url https://recipes.example/lemon-tart",
            "searchlight extract https://recipes.example/lemon-tart --json",
        ])

    var source: String
    var baseURL: WebURL?
    var contentType: String?
    var json: Bool
    var explain: Bool
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
        fetch = try FetchOptions(arguments)
    }

    func run() throws {
        let markup: PageMarkup
        let lower = source.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            markup = try fetchAndExtract()
        } else {
            guard let data = FileManager.default.contents(atPath: source) else {
                throw CommandFailure("cannot read '\(source)': no such file, or not readable")
            }
            markup = MarkupExtractor().extract(Array(data), url: baseURL, response: .init(contentType: contentType))
        }
        if json {
            var object = markup.json.objectValue ?? JSONObject()
            if explain { object["mainTextBlocks"] = markup.mainText.explanationJSON }
            Console.writeLine(JSONWriter.string(.object(object), style: .pretty))
        } else {
            Console.write(PageMarkupSummary(markup, explain: explain).text)
        }
    }

    private func fetchAndExtract() throws -> PageMarkup {
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
        return MarkupExtractor().extract(response.body, url: WebURL(response.request.url), response: info)
    }
}

extension ExtractCommand {
    /// The options this command reads.
    enum Option {
        static let baseUrl = OptionSpec.value("--base-url", "url", help: "The page's URL, for resolving relative links in a file.\nA fetched URL is its own base.")
        static let contentType = OptionSpec.value("--content-type", "type", help: "The Content-Type to assume for a file (its charset counts).")
        static let json = OptionSpec.flag("--json", help: "Print the full PageMarkup as JSON.")
        static let explain = OptionSpec.flag("--explain", help: "Show each block of text and why it is, or is not, part of the main text.")
    }
}
