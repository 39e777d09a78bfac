import Foundation
import Items
import JSON
import SearchlightTestSupport
import Service
import Testing

/// `/v1/search`'s filters, in both stores: each scopes the answer, together they combine,
/// a cached answer is never served for another filter, and a bad value is a 400.
@Suite struct SearchFilterServiceTests {
    @Test(arguments: ServiceBackend.allCases) func filtersScopeTheAnswer(_ backend: ServiceBackend) throws {
        let running = try RunningService(backend: backend, maximumItems: 1000)
        defer { running.stop() }
        let a = try running.key(owner: "alpha", domain: "a.example")
        let b = try running.key(owner: "beta", domain: "b.example")
        let ios: JSONValue = .array([["platform": "ios", "appStoreId": "123456", "deepLink": "tarts://a-1"]])
        let pushedA = running.call("POST", "/v1/items", json: items(
            item("a-1", "Lemon tart", webURL: "https://a.example/tart", extra: [("contentType", "public.recipe"), ("apps", ios)]),
            item("a-2", "Lemon tart photos", webURL: "https://a.example/photos/tart", domain: "example.a.albums.2024",
                 extra: [("contentType", "public.image")])
        ), key: a)
        #expect(pushedA.status == 200, "\(pushedA.text)")
        #expect(running.call("POST", "/v1/items", json: items(
            item("b-1", "Lemon tart", webURL: "https://b.example/tart", domain: "example.b.albums", extra: [("contentType", "public.image")])
        ), key: b).status == 200)

        #expect(Set(running.ids("lemon tart")) == ["a-1", "a-2", "b-1"])
        #expect(Set(running.ids("lemon tart", "&owner=alpha")) == ["a-1", "a-2"])
        #expect(running.ids("lemon tart", "&owner=beta") == ["b-1"])
        #expect(Set(running.ids("lemon tart", "&domain=A.example")) == ["a-1", "a-2"], "a domain, any case")
        #expect(running.ids("lemon tart", "&domainIdentifier=example.a.albums") == ["a-2"], "under it, not example.b.albums")
        #expect(Set(running.ids("lemon tart", "&contentType=public.image")) == ["a-2", "b-1"])
        #expect(running.ids("lemon tart", "&hasApp=ios") == ["a-1"])
        #expect(running.ids("lemon tart", "&contentType=public.image&owner=alpha") == ["a-2"])
        #expect(running.ids("lemon tart", "&hasApp=android").isEmpty)
        #expect(running.ids("lemon tart", "&installed=123456&installedOnly=1") == ["a-1"], "only what an installed app opens")
        #expect(running.ids("lemon tart", "&installed=999&installedOnly=1").isEmpty)
        // The unfiltered answer is cached; a filtered one is its own.
        #expect(Set(running.ids("lemon tart")) == ["a-1", "a-2", "b-1"])

        let faceted = running.call("GET", "/v1/search?q=lemon+tart&facets=contentType,domain").json
        #expect(faceted?["facets"] == ["contentType": ["public.image": 2, "public.recipe": 1], "domain": ["a.example": 2, "b.example": 1]])
        #expect(faceted?["facetsExact"] == true)
        #expect(running.call("GET", "/v1/search?q=lemon+tart").json?["facets"] == nil, "only when asked")

        for (bad, field) in [("&hasApp=windows", "hasApp"), ("&domain=not%20a%20host", "domain"), ("&contentType=", "contentType"),
                             ("&colour=red", nil), ("&facets=colour", "facets")] {
            let reply = running.call("GET", "/v1/search?q=lemon" + bad)
            #expect(reply.status == 400, "\(bad)")
            #expect(reply.json?["error"]?["code"] == "invalid-query", "\(bad): \(reply.text)")
            #expect(reply.json?["error"]?["field"]?.stringValue == field, "the parameter at fault: \(reply.text)")
        }
    }

    /// `near`, `radius` and `sort=distance` over pushed places, in both stores: the circle
    /// kept, each result's distance, nearest first, and bad values a 400.
    @Test(arguments: ServiceBackend.allCases) func searchesNearAPlace(_ backend: ServiceBackend) throws {
        let running = try RunningService(backend: backend, maximumItems: 1000)
        defer { running.stop() }
        let key = try running.key(owner: "alpha", domain: "cafes.example")
        func cafe(_ id: String, _ latitude: Double, _ longitude: Double) -> JSONValue {
            item(id, "Cafe \(id)", webURL: "https://cafes.example/\(id)", extra: [("latitude", JSONValue(latitude)), ("longitude", JSONValue(longitude))])
        }
        let pushed = running.call("POST", "/v1/items", json: items(
            cafe("far", 48.8918, 2.2361), cafe("near", 48.8606, 2.3376), cafe("nearest", 48.8570, 2.3530), item("unplaced", "Cafe unplaced", webURL: "https://cafes.example/unplaced"),
            cafe("lyon", 45.764, 4.8357)), key: key)
        #expect(pushed.status == 200, "\(pushed.text)")
        #expect(Set(running.ids("cafe", "&near=48.8566,2.3522")) == ["far", "near", "nearest"], "10 km by default")
        #expect(Set(running.ids("cafe", "&near=48.8566,2.3522&radius=2")) == ["near", "nearest"])
        #expect(running.ids("cafe", "&near=48.8566,2.3522&radius=500&sort=distance") == ["nearest", "near", "far", "lyon"])
        let answer = running.call("GET", "/v1/search?q=cafe&near=48.8566,2.3522&radius=2&sort=distance").json
        let first = answer?["results"]?.arrayValue?.first
        #expect(first?["distance"]?.doubleValue.map { $0 == 0.074 } == true, "\(String(describing: first))")
        #expect(first?["latitude"] == 48.857 && first?["longitude"] == 2.353)
        #expect(running.call("GET", "/v1/search?q=cafe").json?["results"]?.arrayValue?.allSatisfy { $0["distance"] == nil } == true)
        for bad in ["&near=91,2", "&near=48.8", "&radius=3", "&near=48.8,2.3&radius=0", "&sort=distance", "&sort=price"] {
            let reply = running.call("GET", "/v1/search?q=cafe" + bad)
            #expect(reply.status == 400, "\(bad)")
            #expect(reply.json?["error"]?["code"] == "invalid-query", "\(bad): \(reply.text)")
        }
        let half = running.call("POST", "/v1/items", json: items(item("half", "Cafe", webURL: "https://cafes.example/half", extra: [("latitude", 48.8)])), key: key)
        #expect(half.status == 400 && half.text.contains("latitude and longitude go together"), "\(half.text)")
    }
}
