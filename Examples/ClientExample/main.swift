// Pushes an item to a running `searchlight serve`, finds it, and deletes it, with the
// SearchlightClient library only. Run it against a server and a key of your own:
//
//     SEARCHLIGHT_SERVER=http://127.0.0.1:7700 SEARCHLIGHT_KEY=sl_… swift run searchlight-client-example
import Foundation
import SearchlightClient

let environment = ProcessInfo.processInfo.environment
guard let server = environment["SEARCHLIGHT_SERVER"].flatMap(URL.init(string:)), let key = environment["SEARCHLIGHT_KEY"] else {
    print("set SEARCHLIGHT_SERVER (http://127.0.0.1:7700) and SEARCHLIGHT_KEY (from searchlight keys create --owner NAME --domain DOMAIN)")
    exit(64)
}
let domain = environment["SEARCHLIGHT_DOMAIN"] ?? "tartine.example"
let index = SearchableIndex(server: server, key: key)

var attributes = SearchableItemAttributeSet(contentType: "public.recipe", title: "Lemon tart")
attributes.contentDescription = "Sharp, sweet, and baked blind the day before."
attributes.keywords = ["baking", "dessert"]
attributes.webURL = URL(string: "https://\(domain)/recipes/lemon-tart")
let item = SearchableItem(uniqueIdentifier: "lemon-tart", domainIdentifier: domain.split(separator: ".").reversed().joined(separator: ".") + ".recipes",
                          attributeSet: attributes)

do {
    try await index.indexSearchableItems([item])
    let results = try await index.search(SearchRequest("lemon tart"))
    for hit in results.response.hits {
        print("\(hit.item.title): a tap opens \(hit.action?.url ?? "nothing")")
    }
    let deleted = try await index.deleteSearchableItems(withIdentifiers: ["lemon-tart"])
    print("pushed 1, found \(results.response.hits.count), deleted \(deleted)")
} catch {
    print("failed: \(error.message) (\(error.serverCode ?? "no answer"))")
    exit(1)
}
