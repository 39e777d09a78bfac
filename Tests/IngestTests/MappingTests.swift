import Foundation
import Ingest
import ItemMapping
import Items
import JSON
import SearchIndex
import Testing

/// Key paths, templates and mapping files, without a database.
@Suite struct MappingTests {
    @Test func keyPathsReadAsKeyValueCodingDoes() throws {
        #expect(try RecordKeyPath(parsing: "company.name") == RecordKeyPath(steps: ["company", "name"]))
        #expect(try RecordKeyPath(parsing: "employees.@count") == RecordKeyPath(steps: ["employees"], aggregate: .count))
        #expect(try RecordKeyPath(parsing: "employees.@sum.salary") == RecordKeyPath(steps: ["employees"], aggregate: .sum, memberSteps: ["salary"]))
        #expect(try RecordKeyPath(parsing: "a.b.@avg.c.d").memberSteps == ["c", "d"])
        #expect(throws: RecordKeyPath.ParseError.unknownOperator("@median")) { try RecordKeyPath(parsing: "employees.@median.salary") }
        #expect(throws: RecordKeyPath.ParseError.operatorNeedsKey("@sum")) { try RecordKeyPath(parsing: "employees.@sum") }
        #expect(throws: RecordKeyPath.ParseError.countTakesNoKey) { try RecordKeyPath(parsing: "employees.@count.salary") }
        #expect(throws: RecordKeyPath.ParseError.misplacedOperator) { try RecordKeyPath(parsing: "@count") }
        #expect(throws: RecordKeyPath.ParseError.emptyName) { try RecordKeyPath(parsing: "company..name") }
    }

    @Test func templatesInsertValuesAndKeepText() throws {
        let template = try Template(parsing: "employee_{#firstName#}_{#lastName#}")
        #expect(template.keyPaths.map(\.description) == ["firstName", "lastName"])
        let values = ["firstName": "Marian", "lastName": "Paul"]
        #expect(template.render { values[$0.description] } == "employee_Marian_Paul")
        #expect(template.render { _ in nil } == "employee__")
        #expect(try Template(parsing: "no placeholders").render { _ in "x" } == "no placeholders")
        #expect(try Template(parsing: "{#a#}{#b#}").render { $0.description.uppercased() } == "AB")
        #expect(throws: Template.ParseError.unclosed) { try Template(parsing: "hello {#name") }
    }

    /// A page's mapping applies field by field: a field that does not render (a rating that
    /// is no number) keeps the page's own value, and the rest still apply.
    @Test func anOverlayKeepsThePagesValueWhereOneFieldFails() throws {
        let set = try MappingFile.parse(Array(#"""
            {"source": "site", "mappings": [{"entity": "Restaurant", "uniqueIdentifierPattern": "x", "titlePattern": "{#name#}",
              "attributeSet": {"rating": "{#aggregateRating.ratingValue#}", "contentDescription": "{#description#}", "price": "{#priceRange#}",
                               "latitude": "{#geo.latitude#}", "longitude": "{#geo.longitude#}"}}]}
            """#.utf8), file: "m.json")
        let object = try #require(try JSONParser.parse(#"""
            {"@type": "Restaurant", "name": "Chez A", "description": "Bistro by the Louvre", "priceRange": "€€",
             "aggregateRating": {"ratingValue": "great"}, "geo": {"latitude": 48.8606, "longitude": 2.3376}}
            """#).objectValue)
        var page = SearchableItem(uniqueIdentifier: "https://a.example/", title: "Chez A | Paris", webURL: "https://a.example/", rating: 4, source: .crawled)
        page.contentDescription = "The page's own"
        let overlaid = ItemRenderer.overlay(set.mappings[0], on: page, object: object, now: Date())
        #expect(overlaid.rating == 4, "the rating that is no number keeps the page's")
        #expect(overlaid.contentDescription == "Bistro by the Louvre" && overlaid.price == "€€" && overlaid.title == "Chez A")
        #expect(overlaid.location == GeoPoint(latitude: 48.8606, longitude: 2.3376))
        let whole = try #require(try JSONParser.parse(#"{"name": "Chez A", "aggregateRating": {"ratingValue": "4.5"}}"#).objectValue)
        #expect(ItemRenderer.overlay(set.mappings[0], on: page, object: whole, now: Date()).rating == 4.5)
    }

    @Test func mappingFilesAreCheckedWhenLoaded() throws {
        func parse(_ text: String) throws -> MappingSet { try MappingFile.parse(Array(text.utf8), file: "m.json") }
        let set = try parse(String(contentsOf: DemoFiles.mapping, encoding: .utf8))
        #expect(set.source == "hr")
        #expect(set.mappings.map(\.entity) == ["Employee", "Company"])
        #expect(set.mappings[1].fields[.title]?.source == "{#name#}")
        #expect(set.mappings[0].apps.first?.deepLink?.source == "hr://companies/{#company.name#}/{#employeeID#}")

        let cases: [(String, String)] = [
            (#"{"source": "hr", "mappings": [{"entity": "E", "uniqueIdentifierPattern": "x"}]}"#, "titlePattern: required"),
            (#"{"source": "hr", "mappings": [{"entity": "E", "uniqueIdentifierPattern": "x", "titlePattern": "{#a"}]}"#, "a {# without its #}"),
            (#"{"source": "hr", "mappings": [{"entity": "E", "uniqueIdentifierPattern": "x", "attributeSet": {"title": "t", "colour": "red"}}]}"#,
             "attributeSet.colour: not an item field"),
            (#"{"source": "h r", "mappings": []}"#, "source: letters, digits"),
            (#"{"source": "hr", "mappings": [{"entity": "E", "uniqueIdentifierPattern": "{#x.@mean.y#}", "titlePattern": "t"}]}"#,
             "unknown operator @mean"),
            (#"{"source": "hr", "mappings": [{"entity": "E", "uniqueIdentifierPattern": "x", "titlePattern": "t"}, {"entity": "E", "uniqueIdentifierPattern": "y", "titlePattern": "t"}]}"#,
             "a second mapping for the same entity"),
            ("not json", "not JSON"),
        ]
        for (text, problem) in cases {
            #expect(throws: MappingError.self) { try parse(text) }
            do {
                _ = try parse(text)
            } catch {
                #expect("\(error)".hasPrefix("m.json"), "\(error)")
                #expect("\(error)".contains(problem), "\(error) should say \(problem)")
            }
        }
    }

    @Test func coreDataModelsReadFromTheirBundle() throws {
        let model = try CoreDataModelReader.read(path: DemoFiles.model.path)
        #expect(Set(model.entities.map(\.name)) == ["Company", "Employee", "Manager", "Project"])
        #expect(model.entity("Manager")?.parent == "Employee")
        #expect(model.attribute("firstName", of: "Manager")?.type == .text)
        #expect(model.attribute("hired", of: "Employee")?.type == .date)
        let employees = try #require(model.relationship("employees", of: "Company"))
        #expect(employees.toMany && employees.destination == "Employee" && employees.inverse == "company")
        #expect(model.relationship("projects", of: "Manager")?.toMany == true)
        #expect(model.lineage("Manager").map(\.name) == ["Manager", "Employee"])
        #expect(throws: CoreDataModelReader.ReadError.self) { try CoreDataModelReader.parse(Array("<plist/>".utf8), path: "x") }
        #expect(throws: CoreDataModelReader.ReadError.self) { try CoreDataModelReader.parse(Array("<model><entity".utf8), path: "x") }
    }
}
