import DemoWeb
import Foundation
import Ingest
import ItemMapping
import Items
import SQLite
import SearchIndex

/// The demo's HR files (store SQL, model, mapping).
enum DemoFiles {
    static var model: URL { DemoApps.hrModel }
    static var mapping: URL { DemoApps.hrMapping }
}

/// A sink into a real index that can be told to die at a given batch: before the index
/// takes it (as a run killed while sending), or after (killed before recording it).
final class IndexSink: IngestSink, @unchecked Sendable {
    // Unchecked: used by one test at a time, from its own thread.
    let index: SearchIndex
    var batchLimit: Int
    var failBefore: Int?
    var failAfter: Int?
    private(set) var commits = 0
    /// Every identifier the index took, upserted or deleted, in order.
    var upserted: [String] = []
    var deleted: [String] = []

    struct Killed: Error {}

    init(index: SearchIndex, batchLimit: Int = 2000) {
        self.index = index
        self.batchLimit = batchLimit
    }

    func clientState(_ name: String) throws -> String? {
        try index.clientState(batch: name).map { String(decoding: $0, as: UTF8.self) }
    }

    func commit(upserts: [ValidItem], deletions: [String], name: String, expected: String?, state: String) throws {
        if failBefore == commits { throw Killed() }
        try IndexBatchSink(index: index).commit(upserts: upserts, deletions: deletions, name: name, expected: expected, state: state)
        commits += 1
        upserted += upserts.map(\.uniqueIdentifier)
        deleted += deletions
        if failAfter == commits { throw Killed() }
    }
}

/// A folder with an HR store (or another store), an index and an ingest state.
struct IngestFixture {
    let folder: URL
    let store: String
    let index: SearchIndex
    let sink: IndexSink
    var mappingText: String
    var modelPath: String?

    init(store make: (String) throws -> Void, mapping: String, model: String? = DemoFiles.model.path, batchLimit: Int = 2000) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("ingest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        store = folder.appendingPathComponent("app.sqlite").path
        try make(store)
        index = try SearchIndex(path: folder.appendingPathComponent("index.sqlite").path)
        sink = IndexSink(index: index, batchLimit: batchLimit)
        mappingText = mapping
        modelPath = model
    }

    static func hr(batchLimit: Int = 2000) throws -> IngestFixture {
        try IngestFixture(store: { try DemoApps.makeHRStore(at: $0) }, mapping: try String(contentsOf: DemoFiles.mapping, encoding: .utf8),
                          batchLimit: batchLimit)
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }

    /// One ingest run, as `searchlight ingest` does it.
    @discardableResult
    func ingest() throws -> IngestReport {
        let mappings = try MappingFile.parse(Array(mappingText.utf8), file: "mapping.json")
        let model = try modelPath.map { try CoreDataModelReader.read(path: $0) }
        let database = try SourceDatabase(path: store, model: model)
        let bound = try mappings.bind(to: database.schema, file: "mapping.json")
        let state = try IngestState(path: folder.appendingPathComponent("ingest.sqlite").path)
        try state.register(name: mappings.source, database: store, model: modelPath, mapping: "mapping.json")
        return try Ingestor(database: database, mappings: mappings, bound: bound, state: state, sink: sink).run()
    }

    /// Changes the app's store as the app would (from another connection).
    func app(_ sql: String) throws {
        let connection = try SQLiteConnection(path: store)
        try connection.execute(sql)
    }

    func item(_ id: String) throws -> SearchableItem? { try index.item(ItemKey(owner: nil, identifier: id)) }

    func ids(_ query: String) throws -> [String] {
        try index.search(SearchRequest(query, limit: 100)).hits.map(\.item.uniqueIdentifier)
    }

    func count() throws -> Int { try index.count() }
}
