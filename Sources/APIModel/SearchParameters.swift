import ItemModel
import SearchModel
import TextUtilities

/// `GET /v1/search`'s query parameters and the ``SearchRequest`` they say: the client writes
/// them here; the service and the router read them back (`ServiceAPI`).
public enum SearchParameters {
    /// Every parameter `/v1/search` takes; any other is refused (a typo is not ignored).
    public static let names: Set<String> = Set(["q", "limit", "offset", "platform", "installed", "snippets", "typing", "facets", "sort"])
        .union(SearchFilter.parameterNames)

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
