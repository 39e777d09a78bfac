import DemoWeb
import Foundation
import Ingest
import ItemMapping
import Items
import SQLite
import SearchlightMapping
import Testing

/// The mapping library an app links (`SearchlightMapping`) renders a record as `ingest`
/// renders the same record from the app's database: the same templates, the same engine.
@Suite struct MappingLibraryTests {
    struct Company: Encodable {
        var name: String
    }

    struct Project: Encodable {
        var title: String
    }

    /// The HR demo's employee as an app's Codable model holds it.
    struct Employee: Encodable {
        var firstName: String
        var lastName: String
        var jobTitle: String
        var employeeID: String
        var avatarImageName: String
        var company: Company
        var projects: [Project]
    }

    @Test func aRecordWithAToManyRelationshipRendersAsIngestRendersIt() throws {
        let fixture = try IngestFixture.hr()
        defer { fixture.remove() }
        try fixture.ingest()
        let ingested = try #require(try fixture.item("employee_Marian_Paul"))

        // The same record, read from the app's store as the app would load it.
        let store = try SQLiteConnection(path: fixture.store)
        let row = try store.statement("""
            SELECT e.ZFIRSTNAME, e.ZLASTNAME, e.ZJOBTITLE, e.ZEMPLOYEEID, e.ZAVATARIMAGENAME, c.ZNAME, e.Z_PK
            FROM ZEMPLOYEE e JOIN ZCOMPANY c ON c.Z_PK = e.ZCOMPANY WHERE e.ZEMPLOYEEID = 'E001'
            """)
        #expect(try row.step())
        let titles = try store.statement("SELECT p.ZTITLE FROM ZPROJECT p JOIN Z_2PROJECTS j ON j.Z_4PROJECTS = p.Z_PK WHERE j.Z_2MEMBERS = ? ORDER BY p.Z_PK")
        titles.bind(1, row.int64(6))
        var projects: [Project] = []
        while try titles.step() { projects.append(Project(title: titles.string(0) ?? "")) }
        #expect(projects.count >= 2, "a to-many relationship with several members")
        let employee = Employee(firstName: row.string(0) ?? "", lastName: row.string(1) ?? "", jobTitle: row.string(2) ?? "",
                                employeeID: row.string(3) ?? "", avatarImageName: row.string(4) ?? "", company: Company(name: row.string(5) ?? ""),
                                projects: projects)

        let mappings = try MappingFile.load(path: DemoApps.hrMapping.path)
        let mapping = try #require(mappings.mappings.first { $0.entity == "Employee" })
        let drafted = try MappedItem.draft(mapping, encoding: employee)
        #expect(drafted.uniqueIdentifier == ingested.uniqueIdentifier)
        #expect(drafted.title == ingested.title)
        #expect(drafted.contentDescription == ingested.contentDescription)
        #expect(drafted.keywords == ingested.keywords, "the projects' titles, one keyword each")
        #expect(drafted.thumbnailURL == ingested.thumbnailURL && drafted.webURL == ingested.webURL)
        #expect(drafted.apps.map(\.deepLink) == ingested.apps.map(\.deepLink))
        #expect(try drafted.validated(.rendered, now: Date()).item.keywords == ingested.keywords, "and the server's contract takes it as it is")
    }
}
