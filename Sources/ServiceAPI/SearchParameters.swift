import FoundationEssentials
import HTTPServer
import Items
import SearchModel
import TextUtilities

/// `GET /v1/search`'s query parameters and the ``SearchRequest`` they say, both ways: the
/// service and the router read a request from them, the client writes them.
public enum SearchParameters {
    /// Every parameter `/v1/search` takes; any other is refused (a typo is not ignored).
    public static let names: Set<String> = Set(["q", "limit", "offset", "platform", "installed", "snippets", "typing", "facets", "sort"])
        .union(SearchFilter.parameterNames)

    /// The search a request asks for; 400 for parameters it does not take or values out of
    /// range. `now` is the instant it ranks at.
    public static func request(from request: HTTPServerRequest, maximumResults: Int, now: Date) throws(APIError) -> SearchRequest {
        for item in request.rawQueryItems {
            let name = PercentDecoding.decode(item.name, plusIsSpace: true)
            guard names.contains(name) else {
                throw .invalidQuery("unknown parameter '\(name.prefix(64))': /v1/search takes " + names.sorted().joined(separator: ", "))
            }
        }
        guard let query = request.queryValue("q") else { throw .invalidQuery("q is required") }
        func number(_ name: String) throws(APIError) -> Int? {
            guard let text = request.queryValue(name) else { return nil }
            guard let number = Int(text) else { throw .invalidQuery("\(name) must be a whole number") }
            return number
        }
        func flag(_ name: String) -> Bool { ["1", "true"].contains(request.queryValue(name) ?? "") }
        let platformName = request.queryValue("platform") ?? "ios"
        guard let platform = AppTarget.Platform(rawValue: platformName) else { throw .invalidQuery("platform must be ios or android") }
        let installed = Set(request.queryValues("installed").flatMap { $0.split(separator: ",") }.map(String.init))
        var search = SearchRequest(query, limit: try number("limit") ?? 10, platform: platform, installed: installed, snippets: flag("snippets"))
        search.typing = flag("typing")
        search.offset = try number("offset") ?? 0
        do {
            search.filter = try SearchFilter { request.queryValue($0) }
            if flag("installedOnly") { search.filter.restrict(toAppsIn: installed, platform: platform) }
            search.facets = try Facet.parse(request.queryValue("facets") ?? "")
            search.sort = try SearchSort(parameter: request.queryValue("sort"))
            search.now = now
            try search.validate(maximumResults: maximumResults)
        } catch {
            throw APIError(error)
        }
        return search
    }

    /// The parameters that ask for `request` (what ``request(from:maximumResults:now:)``
    /// reads back as the same search), percent-encoded, joined with `&`.
    public static func query(for request: SearchRequest) -> String {
        var parameters = [("q", request.text), ("limit", String(request.limit)), ("platform", request.platform.rawValue)]
        parameters += request.installed.sorted().map { ("installed", $0) }
        if request.snippets { parameters.append(("snippets", "1")) }
        if request.offset > 0 { parameters.append(("offset", String(request.offset))) }
        if request.typing { parameters.append(("typing", "1")) }
        parameters += request.filter.queryParameters
        if !request.facets.isEmpty { parameters.append(("facets", request.facets.map(\.rawValue).sorted().joined(separator: ","))) }
        if request.sort != .relevance { parameters.append(("sort", request.sort.rawValue)) }
        return parameters.map { "\($0.0)=\(Unreserved.encodingOthers($0.1))" }.joined(separator: "&")
    }
}
