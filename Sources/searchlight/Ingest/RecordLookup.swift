import Foundation
import Ingest
import ItemMapping
import Items
import SearchIndex

/// Finds the record behind an ingested item: the source's database, model and mapping as
/// the data folder's ingest state registered them, then the row, read through the mapping.
/// Only for the owner the source was ingested for: a key owner's item naming the
/// operator's source (or another owner's) finds nothing. Used by `resolve` and by `serve`
/// (`GET /v1/items/{id}/source`).
enum RecordLookup {
    enum Failure: Error, CustomStringConvertible {
        case notIngestedHere(RecordReference)
        case unreadable(String)
        case gone(RecordReference, database: String)

        var description: String {
            switch self {
            case .notIngestedHere(let reference): "source '\(reference.name)' was not ingested from this data folder"
            case .unreadable(let problem): problem
            case .gone(let reference, let database): "\(reference.entity) \(reference.key) is no longer in \(database) (deleted since the last ingest)"
            }
        }
    }

    static func record(_ reference: RecordReference, owner: String?, data: DataDirectory) throws -> (record: ResolvedRecord, database: String) {
        guard FileManager.default.fileExists(atPath: data.ingestPath), let source = try IngestState(path: data.ingestPath).source(reference.name),
            source.owner == owner
        else {
            throw Failure.notIngestedHere(reference)
        }
        let mappings: MappingSet
        do {
            mappings = try MappingFile.load(path: source.mapping)
        } catch {
            throw Failure.unreadable("the source's mapping: \(error)")
        }
        let model: DataModel?
        do {
            model = try source.model.map { try CoreDataModelReader.read(path: $0) }
        } catch {
            throw Failure.unreadable("the source's model: \(error)")
        }
        let database: SourceDatabase
        do {
            database = try SourceDatabase(path: source.database, model: model)
        } catch {
            throw Failure.unreadable("cannot open the source database \(source.database): \(error)")
        }
        guard let record = try ResolvedRecord(database: database, mappings: mappings, entity: reference.entity, key: reference.key) else {
            throw Failure.gone(reference, database: source.database)
        }
        return (record, source.database)
    }
}
