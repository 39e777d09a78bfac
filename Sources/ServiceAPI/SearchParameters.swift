import FoundationEssentials
import HTTPServer
import Items
import SearchModel
import TextUtilities

/// The server's side of ``SearchParameters``: a request read from them.
extension SearchParameters {
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
}
