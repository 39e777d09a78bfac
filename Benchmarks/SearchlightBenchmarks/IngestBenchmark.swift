import Foundation
import Ingest
import ItemMapping
import Items
import JSON
import SQLite
import SearchIndex

/// Issue 12's ingest benchmark: a Core Data store of the HR shape (companies and N
/// employees, the to-one `company` and its inverse `employees`), ingested through the demo's
/// mapping into a new index; next to it, the same items committed straight into another new
/// index with `SearchIndex.commit` in batches of the same size (the raw index rate). Then
/// a run with nothing changed, and one after 1% of the employees were saved again.
///
/// Prints one JSON line: rows, items, the two rates and their ratio (target ≥ 0.7), and
/// the unchanged re-run's time as a share of the first run's (target ≤ 5%).
enum IngestBenchmark {
    static func run(rows: Int, companies: Int, directory: String) {
        let folder = (directory as NSString).appendingPathComponent("ingest-bench-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = folder + "/HR.sqlite"
        let made = IndexBenchmark.time { makeStore(at: store, rows: rows, companies: companies) }
        let model = try! CoreDataModelReader.read(path: modelPath)
        let mappings = try! MappingFile.load(path: mappingPath)

        // Ingest, keeping the items it sends for the baseline.
        let index = try! SearchIndex(path: folder + "/index.sqlite")
        final class Capture: IngestSink, @unchecked Sendable {
            // Unchecked: one ingest run uses it, from one thread.
            let inner: IndexBatchSink
            var items: [ValidItem] = []
            var keep = true
            var batchLimit: Int { inner.batchLimit }
            init(_ inner: IndexBatchSink) { self.inner = inner }
            func clientState(_ name: String) throws -> String? { try inner.clientState(name) }
            func commit(upserts: [ValidItem], deletions: [String], name: String, expected: String?, state: String) throws {
                if keep { items += upserts }
                try inner.commit(upserts: upserts, deletions: deletions, name: name, expected: expected, state: state)
            }
        }
        let sink = Capture(IndexBatchSink(index: index))
        func ingest() -> IngestReport {
            let database = try! SourceDatabase(path: store, model: model)
            let bound = try! mappings.bind(to: database.schema, file: mappingPath)
            let state = try! IngestState(path: folder + "/ingest.sqlite")
            try! state.register(name: mappings.source, database: store, model: modelPath, mapping: mappingPath)
            return try! Ingestor(database: database, mappings: mappings, bound: bound, state: state, sink: sink).run()
        }
        var first: IngestReport?
        let ingestSeconds = IndexBenchmark.time { first = ingest() }
        sink.keep = false
        let items = sink.items
        sink.items = []

        // The raw index rate on the same items.
        let raw = try! SearchIndex(path: folder + "/raw.sqlite")
        let rawSeconds = IndexBenchmark.time {
            for start in stride(from: 0, to: items.count, by: 2000) {
                try! raw.commit(ItemBatch(upserts: Array(items[start..<min(start + 2000, items.count)])))
            }
        }
        var unchanged: IngestReport?
        let unchangedSeconds = IndexBenchmark.time { unchanged = ingest() }
        let touched = rows / 100
        let connection = try! SQLiteConnection(path: store)
        try! connection.execute("UPDATE ZEMPLOYEE SET ZJOBTITLE = ZJOBTITLE || ' (senior)', Z_OPT = Z_OPT + 1 WHERE Z_PK % 100 = 0")
        var incremental: IngestReport?
        let incrementalSeconds = IndexBenchmark.time { incremental = ingest() }

        let ingestRate = Double(items.count) / ingestSeconds
        let rawRate = Double(items.count) / rawSeconds
        print(String(format: """
            {"benchmark": "ingest", "rows": %d, "companies": %d, "storeSeconds": %.1f, "items": %d, "created": %d, \
            "ingestSeconds": %.2f, "ingestItemsPerSecond": %.0f, "rawCommitSeconds": %.2f, "rawItemsPerSecond": %.0f, \
            "ratio": %.3f, "unchangedSeconds": %.3f, "unchangedShare": %.4f, "unchangedWrites": %d, \
            "touchedRows": %d, "incrementalSeconds": %.2f, "incrementalUpdated": %d}
            """, rows, companies, made, items.count, first?.created ?? 0, ingestSeconds, ingestRate, rawSeconds, rawRate, ingestRate / rawRate,
            unchangedSeconds, unchangedSeconds / ingestSeconds, (unchanged?.created ?? 0) + (unchanged?.updated ?? 0) + (unchanged?.deleted ?? 0), touched,
            incrementalSeconds, incremental?.updated ?? 0))
        if let first { print(JSONWriter.string(first.json)) }
    }

    /// The demo's HR files, in the source tree (benchmarks run from a checkout).
    static var resources: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources/DemoWeb/Apps/HR").standardized.path
    }

    static var modelPath: String { resources + "/HR.xcdatamodeld" }
    static var mappingPath: String { resources + "/hr-mapping.json" }

    /// The demo store's schema, with `rows` employees spread over `companies` companies and
    /// one project in three.
    static func makeStore(at path: String, rows: Int, companies: Int) {
        let sql = try! String(contentsOfFile: resources + "/HR.sql", encoding: .utf8)
        let connection = try! SQLiteConnection(path: path)
        try! connection.execute(sql)
        try! connection.execute("""
            DELETE FROM ZEMPLOYEE; DELETE FROM ZCOMPANY; DELETE FROM Z_2PROJECTS;
            BEGIN;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(companies))
            INSERT INTO ZCOMPANY (Z_PK, Z_ENT, Z_OPT, ZNAME, ZADDRESS, ZACTIVITY)
            SELECT i, 1, 1, 'Company ' || i, (i % 97) || ' Market Street, City ' || (i % 13), 'activity ' || (i % 40) FROM n;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
            INSERT INTO ZEMPLOYEE (Z_PK, Z_ENT, Z_OPT, ZSALARY, ZCOMPANY, ZAVATARIMAGENAME, ZEMPLOYEEID, ZFIRSTNAME, ZJOBTITLE, ZLASTNAME)
            SELECT i, CASE WHEN i % 20 = 0 THEN 3 ELSE 2 END, 1, 30000 + (i * 7919) % 70000, 1 + i % \(companies), 'avatar' || (i % 500),
                'E' || i, 'First' || (i % 5000), 'job title ' || (i % 300), 'Last' || i FROM n;
            INSERT INTO Z_2PROJECTS SELECT Z_PK, 1 + Z_PK % 3 FROM ZEMPLOYEE WHERE Z_PK % 3 = 0;
            COMMIT;
            """)
    }
}
