import Foundation
import Items
import JSON
import PostgresStore
import SearchIndex
import SearchlightClient
import ServiceClient
import WebURL

/// `searchlight search QUERY [--data DIR] [--limit N] [--installed APP_ID]... [--platform ios|android] [--json]`
struct SearchCommand: Command {
    static let spec = CommandSpec(
        name: "search",
        abstract: "Search the index and show what a tap on each result does.",
        discussion: """
            Results hold any of the words, those with more of them and with the words as
            written first (flexibility also finds flexible, lower); a pasted paragraph is a
            query too. Words the index does not know are also tried with their likely
            spellings; --as-you-type also completes the last word. Each result says what a
            tap does for you: open-app (an installed app at its deep link), open-web, or
            install-app (the store page).
            """,
        arguments: [ArgumentSpec(name: "query", help: "The words to search for.")],
        options: [
            DataDirectory.option,
            Option.limit.spec,
            Option.installed,
            Option.platform,
            Option.json,
            Option.asYouType,
            Option.owner,
            Option.domain,
            Option.domainIdentifier,
            Option.contentType,
            Option.hasApp,
            Option.installedOnly,
            Option.facets,
            Option.near,
            Option.radius,
            Option.sort,
            Option.server,
            Option.cacert,
            StoreOption.option,
        ],
        examples: [
            "searchlight search \"lemon tart\"",
            "searchlight search 直播 --platform android --installed com.xinghuo.live --json",
            "searchlight search \"lemon tart\" --server http://127.0.0.1:8080",
            "searchlight search pizza --near 48.8566,2.3522 --radius 2 --sort distance",
        ])

    var query: String
    var data: DataDirectory
    var limit: Int
    var installed: Set<String>
    var platform: AppTarget.Platform
    var json: Bool
    var typing: Bool
    var server: String?
    var caCertificates: String?
    var store: StoreOption
    var filter: SearchFilter
    var facets: Set<Facet>
    var sort: SearchSort

    init(arguments: ParsedArguments) throws(UsageError) {
        query = arguments.positionals[0]
        data = DataDirectory(arguments)
        limit = try arguments.value(Option.limit)
        installed = Set(arguments.values(Option.installed))
        let platformName = arguments.value(Option.platform) ?? "ios"
        guard let platform = AppTarget.Platform(rawValue: platformName) else {
            throw UsageError("--platform must be ios or android, not '\(platformName)'")
        }
        self.platform = platform
        json = arguments.flag(Option.json)
        typing = arguments.flag(Option.asYouType)
        server = arguments.value(Option.server)
        caCertificates = arguments.value(Option.cacert)
        store = try StoreOption(arguments)
        let names = ["owner": Option.owner, "domain": Option.domain, "domainIdentifier": Option.domainIdentifier,
                     "contentType": Option.contentType, "hasApp": Option.hasApp, "near": Option.near, "radius": Option.radius,
                     "facets": Option.facets, "sort": Option.sort]
        /// The request's error in the words of this command: its flags, not the API's parameters.
        func usage(_ error: SearchIndexError) -> UsageError {
            var message = error.message
            if let field = error.field, let option = names[field], message.hasPrefix(field) {
                message = option.name + message.dropFirst(field.count)
            }
            for (field, option) in names { message = message.replacingOccurrences(of: field + "=", with: option.name + " ") }
            return UsageError(message)
        }
        do {
            filter = try SearchFilter { names[$0].flatMap { arguments.value($0) } }
        } catch {
            throw usage(error)
        }
        if arguments.flag(Option.installedOnly) {
            guard !installed.isEmpty else {
                throw UsageError("--installed-only keeps the items the --installed apps open: name them with --installed ID (an App Store id, bundle id or package)")
            }
            filter.restrict(toAppsIn: installed, platform: platform)
        }
        do throws(SearchIndexError) {
            facets = try Facet.parse(arguments.value(Option.facets) ?? "")
            sort = try SearchSort(parameter: arguments.value(Option.sort))
            if sort == .distance, filter.near == nil { throw SearchIndexError.invalidQuery("--sort distance needs --near latitude,longitude") }
        } catch {
            throw usage(error)
        }
        if let server, WebURL(server) == nil { throw UsageError("--server needs an http(s) URL, not '\(server)'") }
    }

    /// What this command asks of the index.
    var searchRequest: SearchRequest {
        var request = SearchRequest(query, limit: limit, platform: platform, installed: installed, snippets: !json)
        request.typing = typing
        request.filter = filter
        request.facets = facets
        request.sort = sort
        return request
    }

    func run() throws {
        let response: SearchResponse
        let request = searchRequest
        if let server {
            response = try remoteSearch(request, server: server)
        } else {
            try updateCopy()
            let index = try SearchIndex(path: data.indexPath, mode: .existing)
            do {
                response = try index.search(request)
            } catch let error where error.isClientError {
                throw UsageError(error.message)
            }
        }
        if json {
            Console.writeLine(JSONWriter.string(response.json, style: .pretty))
        } else {
            Console.writeStyled(SearchResultsSummary(response: response, highlight: Console.isTerminal).text)
        }
    }
}

extension SearchCommand {
    /// `--server`: the same search asked of a running `searchlight serve`; what it refuses
    /// as a bad request is a usage error here too.
    private func remoteSearch(_ request: SearchRequest, server: String) throws -> SearchResponse {
        let result = Result { () throws(SearchlightError) in
            try ServiceClient(server: server, caCertificates: caCertificates, userAgent: UserAgent.string).search(request)
        }
        switch result {
        case .success(let response):
            return response
        case .failure(let error) where error.code == .badRequest:
            throw UsageError(error.serverMessage ?? error.message)
        case .failure(let error):
            throw CommandFailure(error.message)
        }
    }

    /// With a shared store: brings this machine's copy in the data folder up to date first.
    private func updateCopy() throws {
        guard let shared = try store.open() else { return }
        try data.create()
        let follower = try LogFollower(store: shared, indexPath: data.indexPath, name: "search@" + ProcessInfo.processInfo.hostName)
        try follower.catchUp()
    }

    /// The options this command reads.
    enum Option {
        static let limit = Setting.whole("--limit", help: "Show at most this many results, up to \(SearchRequest.Limits.results)",
                                         in: 1...SearchRequest.Limits.results, default: 10)
        static let installed = OptionSpec.value("--installed", "app-id", help: "An App Store id, bundle id or Android package you have installed.", repeatable: true)
        static let platform = OptionSpec.value("--platform", "ios|android", help: "The platform the taps happen on (default ios).")
        static let json = OptionSpec.flag("--json", help: "Print the results as JSON.")
        static let owner = OptionSpec.value("--owner", "name", help: "Only items this API key owner pushed (\"\" for items nobody owns).")
        static let domain = OptionSpec.value("--domain", "host", help: "Only items whose page is on this domain or its subdomains.")
        static let domainIdentifier = OptionSpec.value(
            "--domain-identifier", "id", help: "Only items of this domainIdentifier, or one under it (com.app.albums covers com.app.albums.2024).")
        static let contentType = OptionSpec.value("--content-type", "type", help: "Only items of this content type (public.image, public.event…).")
        static let hasApp = OptionSpec.value("--has-app", "ios|android", help: "Only items an app of this platform opens.")
        static let facets = OptionSpec.value("--facets", "contentType,domain", help: "Also count the matches by content type and by site.")
        static let near = OptionSpec.value("--near", "lat,lng", help: "Only items within --radius of this place (degrees: 48.8566,2.3522).")
        static let radius = OptionSpec.value("--radius", "km", help: "With --near: how far, in kilometres (default \(Int(GeoCircle.defaultRadius))).")
        static let sort = OptionSpec.value("--sort", "relevance|distance", help: "Order the results by relevance (default) or, with --near, nearest first.")
        static let installedOnly = OptionSpec.flag("--installed-only", help: "Only results a tap opens in one of the --installed apps (a deep link or universal link).")
        static let asYouType = OptionSpec.flag("--as-you-type", help: "The query is still being typed: the last word also matches the words it begins.")
        static let server = OptionSpec.value("--server", "url", help: "Ask a running `searchlight serve` at this URL instead of the local index.")
        static let cacert = OptionSpec.value("--cacert", "file", help: "With --server over https: trust the CA certificates in this PEM file.")
    }
}
