import Foundation
import Ingest
import ItemMapping
import Items
import JSON
import SQLite
import SearchIndex
import Testing

/// Ingest on Core Data–shaped stores: first run, changes, deletes, related records,
/// many-to-many links, renamed items, and runs killed at every point of a batch.
@Suite struct IngestorTests {
    @Test func firstRunIndexesEveryMappedRecord() throws {
        let fixture = try IngestFixture.hr()
        defer { fixture.remove() }
        let report = try fixture.ingest()
        #expect(report.full)
        #expect(report.created == 10)
        #expect(report.skipped == [.emptyTitle: 1], "E008 has no name")
        let marian = try #require(try fixture.item("employee_Marian_Paul"))
        #expect(marian.title == "Marian Paul")
        #expect(marian.contentDescription == "Marian Paul is working as founder and CTO on Wasappli")
        #expect(marian.keywords == ["employee", "Marian", "Paul", "Spotlight indexing", "Live search"])
        #expect(marian.webURL == "https://hr.example/companies/Wasappli/E001")
        #expect(marian.apps.first?.deepLink == "hr://companies/Wasappli/E001")
        #expect(marian.apps.first?.appStoreID == "1234567890")
        // A Manager is fetched as an Employee and rendered by its mapping, under its own entity.
        #expect(marian.record == RecordReference(name: "hr", entity: "Manager", key: "1"))
        #expect(marian.expirationDate == nil)
        #expect(try fixture.ids("Marian Paul").first == "employee_Marian_Paul")
        #expect(try fixture.ids("employee").filter { $0.hasPrefix("employee_") }.count == 7)
        let company = try #require(try fixture.item("company_Wasappli"))
        #expect(company.contentDescription == "Offices in Lille, France, primary activity mobile applications. 3 employees")
        #expect(company.record?.entity == "Company")
        // Unicode on the way in and out, and percent-encoding inside URLs only.
        let li = try #require(try fixture.item("employee_丽_王"))
        #expect(li.contentDescription == "丽 王 is working as streamer on 星火科技")
        #expect(li.webURL == "https://hr.example/companies/%E6%98%9F%E7%81%AB%E7%A7%91%E6%8A%80/E006")
        #expect(try fixture.ids("星火科技").contains("company_星火科技"))
    }

    @Test func anUnchangedStoreWritesNothing() throws {
        let fixture = try IngestFixture.hr()
        defer { fixture.remove() }
        try fixture.ingest()
        let commits = fixture.sink.commits
        let again = try fixture.ingest()
        #expect(!again.full)
        #expect(again.created == 0 && again.updated == 0 && again.deleted == 0)
        #expect(again.changedRows == 0)
        #expect(fixture.sink.commits == commits, "no batch sent")
    }

    @Test func changesReachTheItemsThatReadThem() throws {
        let fixture = try IngestFixture.hr()
        defer { fixture.remove() }
        try fixture.ingest()
        // A company renamed: its item and its employees' items (company.name) change.
        try fixture.app("UPDATE ZCOMPANY SET ZNAME = 'Wasappli Inc', Z_OPT = Z_OPT + 1 WHERE Z_PK = 1")
        var report = try fixture.ingest()
        #expect(!report.full)
        #expect(report.updated == 4, "Marian, Inès, Tom, and the company, renamed company_Wasappli Inc")
        #expect(report.created == 0 && report.deleted == 0)
        #expect(try fixture.item("company_Wasappli") == nil)
        #expect(try fixture.item("company_Wasappli Inc")?.record?.key == "1")
        #expect(try fixture.item("employee_Tom_Kowalski")?.contentDescription == "Tom Kowalski is working as Android developer on Wasappli Inc")
        #expect(try fixture.item("employee_Tom_Kowalski")?.webURL == "https://hr.example/companies/Wasappli%20Inc/E003")
        #expect(try fixture.item("employee_Claire_Dubois")?.contentDescription?.hasSuffix("on Boulangerie Lumière") == true)

        // A new employee: the company's @count follows.
        try fixture.app("INSERT INTO ZEMPLOYEE (Z_PK, Z_ENT, Z_OPT, ZCOMPANY, ZFIRSTNAME, ZLASTNAME, ZJOBTITLE, ZEMPLOYEEID) VALUES (9, 2, 1, 2, 'Léa', 'Petit', 'baker', 'E009')")
        report = try fixture.ingest()
        #expect(report.created == 1 && report.updated == 1)
        #expect(try fixture.item("company_Boulangerie Lumière")?.contentDescription?.hasSuffix("3 employees") == true)

        // An employee moves: both companies' counts change (the old one through the stored link).
        try fixture.app("UPDATE ZEMPLOYEE SET ZCOMPANY = 3, Z_OPT = Z_OPT + 1 WHERE Z_PK = 9")
        report = try fixture.ingest()
        #expect(report.updated == 3)
        #expect(try fixture.item("company_Boulangerie Lumière")?.contentDescription?.hasSuffix("2 employees") == true)
        #expect(try fixture.item("company_星火科技")?.contentDescription?.hasSuffix("3 employees") == true)

        // A delete: the item goes, and the company's count drops.
        try fixture.app("DELETE FROM ZEMPLOYEE WHERE Z_PK = 9")
        report = try fixture.ingest()
        #expect(report.deleted == 1 && report.updated == 1)
        #expect(try fixture.item("employee_Léa_Petit") == nil)
        #expect(try fixture.ids("Léa").isEmpty)
        #expect(try fixture.item("company_星火科技")?.contentDescription?.hasSuffix("2 employees") == true)
    }

    @Test func manyToManyLinksComeAndGo() throws {
        let fixture = try IngestFixture.hr()
        defer { fixture.remove() }
        try fixture.ingest()
        try fixture.app("INSERT INTO Z_2PROJECTS VALUES (7, 2); DELETE FROM Z_2PROJECTS WHERE Z_2MEMBERS = 7 AND Z_4PROJECTS = 3")
        var report = try fixture.ingest()
        #expect(report.updated == 1)
        #expect(try fixture.item("employee_Chen_Wei")?.keywords.last == "Sourdough app")
        // A project renamed: its members' keywords follow.
        try fixture.app("UPDATE ZPROJECT SET ZTITLE = 'Bread app', Z_OPT = Z_OPT + 1 WHERE Z_PK = 2")
        report = try fixture.ingest()
        #expect(report.updated == 4, "Claire, Hugo, Inès and Chen work on it")
        #expect(try fixture.ids("bread").count == 4)
        // A project deleted (with its links, as Core Data's nullify rule does).
        try fixture.app("DELETE FROM ZPROJECT WHERE Z_PK = 2; DELETE FROM Z_2PROJECTS WHERE Z_4PROJECTS = 2")
        report = try fixture.ingest()
        #expect(report.updated == 4)
        #expect(try fixture.ids("bread").isEmpty)
    }

    @Test func aRenamedItemReplacesItsOldIdentifier() throws {
        let fixture = try IngestFixture.hr()
        defer { fixture.remove() }
        try fixture.ingest()
        try fixture.app("UPDATE ZEMPLOYEE SET ZLASTNAME = 'Paul-Durand', Z_OPT = Z_OPT + 1 WHERE Z_PK = 1")
        let report = try fixture.ingest()
        #expect(report.updated == 1 && report.created == 0 && report.deleted == 0)
        #expect(try fixture.item("employee_Marian_Paul") == nil)
        #expect(try fixture.item("employee_Marian_Paul-Durand")?.record?.key == "1")
        // A record whose name now matches another's keeps out of the way, and is counted.
        try fixture.app("UPDATE ZEMPLOYEE SET ZFIRSTNAME = 'Inès', ZLASTNAME = 'Moreau', Z_OPT = Z_OPT + 1 WHERE Z_PK = 3")
        let clash = try fixture.ingest()
        #expect(clash.skipped[.duplicateIdentifier] == 1)
        #expect(try fixture.item("employee_Inès_Moreau")?.record?.key == "2")
        #expect(try fixture.item("employee_Tom_Kowalski") == nil)
    }

    @Test func aRunKilledAtAnyBatchResumesWithoutLossOrRepeats() throws {
        // Five writes (three updates, a create, a delete; Wasappli's count stays 3) in batches of two.
        for point in 0..<3 {
            for after in [false, true] {
                let fixture = try IngestFixture.hr(batchLimit: 2)
                defer { fixture.remove() }
                try fixture.ingest()
                try fixture.app("""
                    UPDATE ZCOMPANY SET ZNAME = 'Lumière & Fils', Z_OPT = Z_OPT + 1 WHERE Z_PK = 2;
                    DELETE FROM ZEMPLOYEE WHERE Z_PK = 3;
                    INSERT INTO ZEMPLOYEE (Z_PK, Z_ENT, Z_OPT, ZCOMPANY, ZFIRSTNAME, ZLASTNAME, ZJOBTITLE) VALUES (10, 2, 1, 1, 'Nora', 'Ali', 'designer');
                    """)
                let before = fixture.sink.commits
                fixture.sink.upserted = []
                fixture.sink.deleted = []
                if after { fixture.sink.failAfter = before + point + 1 } else { fixture.sink.failBefore = before + point }
                #expect(throws: IndexSink.Killed.self) { try fixture.ingest() }
                fixture.sink.failAfter = nil
                fixture.sink.failBefore = nil
                let resumed = try fixture.ingest()
                let label = "killed \(after ? "after" : "before") batch \(point)"
                #expect(try fixture.item("employee_Tom_Kowalski") == nil, "\(label): the delete is not missed")
                #expect(try fixture.item("employee_Nora_Ali") != nil, "\(label)")
                #expect(try fixture.item("company_Lumière & Fils")?.contentDescription?.hasSuffix("2 employees") == true, "\(label)")
                #expect(try fixture.item("employee_Hugo_Martin")?.contentDescription?.hasSuffix("on Lumière & Fils") == true, "\(label)")
                #expect(try fixture.item("company_Wasappli")?.contentDescription?.hasSuffix("3 employees") == true, "\(label)")
                #expect(try fixture.count() == 10, "\(label)")
                // What the killed run committed is not written again.
                #expect(resumed.created + resumed.updated + resumed.deleted > 0 || after && point == 2, "\(label)")
                #expect(fixture.sink.upserted.sorted() == ["company_Lumière & Fils", "employee_Claire_Dubois", "employee_Hugo_Martin", "employee_Nora_Ali"],
                        "\(label): each written once")
                #expect(fixture.sink.deleted.sorted() == ["company_Boulangerie Lumière", "employee_Tom_Kowalski"], "\(label)")
                let quiet = try fixture.ingest()
                #expect(quiet.created + quiet.updated + quiet.deleted == 0, "\(label)")
            }
        }
    }

    @Test func plainTablesWithForeignKeys() throws {
        let mapping = """
            {"source": "shop", "mappings": [
              {"entity": "products", "uniqueIdentifierPattern": "product-{#sku#}", "titlePattern": "{#name#}",
               "attributeSet": {"contentDescription": "{#name#} by {#maker.name#}, {#reviews.@count#} reviews averaging {#reviews.@avg.stars#}",
                                "rating": "{#reviews.@avg.stars#}", "price": "{#price#}", "currency": "EUR",
                                "latitude": "{#lat#}", "longitude": "{#lng#}"}}]}
            """
        let fixture = try IngestFixture(store: { path in
            let connection = try SQLiteConnection(path: path)
            try connection.execute("""
                CREATE TABLE makers(code TEXT PRIMARY KEY, name TEXT NOT NULL);
                CREATE TABLE products(sku TEXT PRIMARY KEY, name TEXT, price REAL, maker_id TEXT REFERENCES makers(code), lat REAL, lng REAL);
                CREATE TABLE reviews(id INTEGER PRIMARY KEY, product TEXT REFERENCES products(sku), stars INTEGER);
                INSERT INTO makers VALUES ('pk', 'Peak Gear'), ('tr', 'Trailcraft');
                INSERT INTO products VALUES ('HL-400', 'Headlamp 400', 39.5, 'pk', 45.9237, 6.8694), ('TR-3', 'Trail Runner 3', 89.9, 'tr', NULL, NULL),
                    ('X', NULL, 1, NULL, NULL, NULL), ('HALF', 'Half placed', 2, 'tr', 45.9, NULL);
                INSERT INTO reviews VALUES (1, 'HL-400', 4), (2, 'HL-400', 5), (3, 'TR-3', 3);
                """)
        }, mapping: mapping, model: nil)
        defer { fixture.remove() }
        let first = try fixture.ingest()
        #expect(first.created == 2 && first.skipped == [IngestSkip.emptyTitle: 1, .invalidItem: 1], "a latitude without its longitude is refused")
        let lamp = try #require(try fixture.item("product-HL-400"))
        #expect(lamp.contentDescription == "Headlamp 400 by Peak Gear, 2 reviews averaging 4.5")
        #expect(lamp.rating == 4.5 && lamp.price == "39.5" && lamp.currency == "EUR")
        #expect(lamp.record == RecordReference(name: "shop", entity: "products", key: "HL-400"))
        #expect(lamp.location == GeoPoint(latitude: 45.9237, longitude: 6.8694))
        #expect(try fixture.item("product-TR-3")?.location == nil)
        // The record: its foreign key is shown once, as the relationship it is.
        let both = try MappingFile.parse(Array(#"{"source": "shop", "mappings": [{"entity": "products", "uniqueIdentifierPattern": "{#maker_id#}-{#sku#}", "titlePattern": "{#maker.name#}"}]}"#.utf8), file: "m.json")
        let record = try #require(try ResolvedRecord(database: SourceDatabase(path: fixture.store, model: nil), mappings: both, entity: "products", key: "HL-400"))
        #expect(record.attributes.map(\.name) == ["sku"], "\(record.attributes.map(\.name))")
        #expect(record.relationships.map(\.name) == ["maker"] && record.relationships.first?.keys == ["pk"])
        // No Z_OPT: a row's content is its version.
        try fixture.app("INSERT INTO reviews VALUES (4, 'TR-3', 5); UPDATE makers SET name = 'Peak Gear Co' WHERE code = 'pk'")
        let second = try fixture.ingest()
        #expect(second.updated == 2 && second.created == 0)
        #expect(try fixture.item("product-TR-3")?.contentDescription == "Trail Runner 3 by Trailcraft, 2 reviews averaging 4")
        #expect(try fixture.item("product-HL-400")?.contentDescription?.contains("Peak Gear Co") == true)
        try fixture.app("DELETE FROM products WHERE sku = 'TR-3'")
        #expect(try fixture.ingest().deleted == 1)
        #expect(try fixture.item("product-TR-3") == nil)
    }

    /// What one item may read through to-many paths is bounded (issue 57): a key path asked
    /// by many templates is read once, and a mapping whose paths reach more related records
    /// than ``RelatedReadBudget/recordsPerItem`` skips the item with a reason, quickly, where
    /// it ran for minutes (64 keyword templates over members of members).
    @Test func toManyReadsAreBoundedPerItem() throws {
        // 30 products, 200 users, every user reviewing every product: a product's reviews'
        // users' reviews are 6,000 records.
        let deep = ["avg", "max", "min", "sum"].flatMap { aggregate in (0..<16).map { "{#reviews.user.reviews.@\(aggregate).stars#} \($0)" } }
        func mapping(_ keywords: [String]) -> String {
            """
            {"source": "shop", "mappings": [{"entity": "products", "uniqueIdentifierPattern": "p-{#sku#}", "titlePattern": "{#name#}",
               "attributeSet": {"keywords": [\(keywords.map { "\"\($0)\"" }.joined(separator: ", "))]}}]}
            """
        }
        var fixture = try IngestFixture(store: { path in
            let connection = try SQLiteConnection(path: path)
            try connection.execute("""
                CREATE TABLE products(sku TEXT PRIMARY KEY, name TEXT);
                CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT);
                CREATE TABLE reviews(id INTEGER PRIMARY KEY, product TEXT REFERENCES products(sku), user INTEGER REFERENCES users(id), stars INTEGER);
                WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 29) INSERT INTO products SELECT 'P' || i, 'Product ' || i FROM n;
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200) INSERT INTO users SELECT i, 'User ' || i FROM n;
                INSERT INTO reviews(product, user, stars) SELECT p.sku, u.id, u.id % 5 FROM products p, users u;
                """)
        }, mapping: mapping(deep), model: nil)
        defer { fixture.remove() }
        let started = Date()
        let report = try fixture.ingest()
        #expect(Date().timeIntervalSince(started) < 60)
        #expect(report.skipped[.tooManyRelated] == 30, "\(report.skipped) \(report.skipExamples)")
        #expect(report.skipExamples.first?.contains("too-many-related (its key paths read more than 20000 related records") == true,
                "\(report.skipExamples)")

        // 64 templates of one such path read it once (6,400 records): the items are made.
        fixture.mappingText = mapping((0..<64).map { "{#reviews.user.reviews.@max.stars#} \($0)" })
        let made = try fixture.ingest()
        #expect(made.created == 30 && made.skipped.isEmpty, "\(made.skipped) \(made.skipExamples)")
        #expect(try fixture.item("p-P3")?.keywords.first == "4 0")
    }

    @Test func withoutTheModelColumnsNameTheAttributes() throws {
        var fixture = try IngestFixture.hr()
        defer { fixture.remove() }
        fixture.modelPath = nil
        fixture.mappingText = """
            {"source": "hr", "mappings": [{"entity": "Employee", "uniqueIdentifierPattern": "e{#employeeID#}",
              "titlePattern": "{#firstName#} {#lastName#}", "contentDescriptionPattern": "{#jobTitle#} at {#company.name#}"}]}
            """
        #expect(try fixture.ingest().created == 7)
        #expect(try fixture.item("eE004")?.contentDescription == "head baker at Boulangerie Lumière")
        fixture.mappingText = """
            {"source": "hr", "mappings": [{"entity": "Company", "uniqueIdentifierPattern": "c{#name#}",
              "titlePattern": "{#name#}", "contentDescriptionPattern": "{#employees.@count#}"}]}
            """
        #expect {
            try fixture.ingest()
        } throws: { error in
            "\(error)".contains("{#employees.@count#}") && "\(error)".contains("--model")
        }
    }

    @Test func theStoreIsNeverWritten() throws {
        let fixture = try IngestFixture.hr()
        defer { fixture.remove() }
        let before = try Data(contentsOf: URL(fileURLWithPath: fixture.store))
        try fixture.ingest()
        try fixture.ingest()
        #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.store)) == before)
    }
}
