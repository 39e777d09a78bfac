import ItemModel
import SearchModel
import ServiceAPI
import Testing

/// `/v1/search`'s grammar for filters, facets and sort, read apart from any index: what a
/// person types in a URL becomes these values or a clear refusal.
@Suite struct SearchParametersTests {
    @Test func aPlaceAndRadiusAreReadAndBadOnesRefused() throws {
        for (near, radius) in [("48.8,2.3", "0"), ("48.8,2.3", "-1"), ("48.8,2.3", "30000"), ("48.8,2.3", "x"), ("91,2", "1"), ("48.8", "1")] {
            #expect(throws: SearchIndexError.self, "\(near) \(radius)") {
                try SearchFilter { ["near": near, "radius": radius][$0] }
            }
        }
        #expect(throws: SearchIndexError.self, "a radius without a place") { try SearchFilter { ["radius": "5"][$0] } }
        let filter = try SearchFilter { ["near": "48.8566,2.3522", "radius": "2.5"][$0] }
        #expect(filter.near == GeoCircle(center: GeoPoint(latitude: 48.8566, longitude: 2.3522), radius: 2.5))
        let written = Dictionary(uniqueKeysWithValues: filter.queryParameters.map { ($0.0, $0.1) })
        #expect(try SearchFilter { written[$0] } == filter, "written and read back")
        #expect(try SearchFilter { ["domain": "Recipes.EXAMPLE"][$0] }.domain == "recipes.example", "a domain is read in lower case")
        #expect(throws: SearchIndexError.self) { try SearchFilter { ["hasApp": "windows"][$0] } }
    }

    @Test func facetsAndSortAreReadByName() throws {
        #expect(try Facet.parse("contentType, domain") == [.contentType, .domain])
        #expect(try Facet.parse("") == [])
        #expect(throws: SearchIndexError.self) { try Facet.parse("colour") }
        #expect(try SearchSort(parameter: nil) == .relevance)
        #expect(try SearchSort(parameter: "distance") == .distance)
        #expect(throws: SearchIndexError.self) { try SearchSort(parameter: "price") }
    }
}
