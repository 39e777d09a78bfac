import SearchModel
import TextUtilities

extension Facet {
    /// Reads a comma-separated `facets` value; throws for a name that is not a facet.
    public static func parse(_ text: String) throws(SearchIndexError) -> Set<Facet> {
        var facets = Set<Facet>()
        for name in text.split(separator: ",") {
            guard let facet = Facet(rawValue: String(name).trimmingASCIIWhitespace()) else {
                throw .invalidQuery("facets takes \(allCases.map(\.rawValue).joined(separator: ", ")), not '\(name.prefix(40))'", field: "facets")
            }
            facets.insert(facet)
        }
        return facets
    }
}

extension SearchSort {
    /// Reads `sort=`: absent is relevance.
    public init(parameter: String?) throws(SearchIndexError) {
        guard let parameter else {
            self = .relevance
            return
        }
        guard let sort = SearchSort(rawValue: parameter) else { throw .invalidQuery("sort must be relevance or distance", field: "sort") }
        self = sort
    }
}
