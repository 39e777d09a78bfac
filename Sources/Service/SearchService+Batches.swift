import Foundation
import HTTPServer
import Items
import JSON
import SearchIndex
import ServiceAPI
import StoreSeams

/// Batches with client state (CoreSpotlight's `beginBatch`/`endBatch(withClientState:)`):
/// committed whole, and only when the stored state is the one the client expects.
extension SearchService {
    /// Each owner has its own batch names. Owner names have no `/` (``Ownership/isValidOwner(_:)``),
    /// so `owner/name` is unambiguous.
    private func batchName(_ name: String, key: APIKey) -> String { key.owner + "/" + name }

    func readBatch(_ request: HTTPServerRequest, _ name: String) throws -> HTTPServerResponse {
        let key = try authenticated(request)
        let state = try items.clientState(batch: batchName(name, key: key))
        return .json(["name": .string(name), "clientState": state.map { .string(String(decoding: $0, as: UTF8.self)) } ?? .null])
    }

    func commitBatch(_ request: HTTPServerRequest, _ name: String) throws -> HTTPServerResponse {
        let key = try authenticated(request)
        let body = try body(request, known: ["items", "deleteIdentifiers", "expectedClientState", "clientState"])
        guard body.contains("expectedClientState") else {
            throw APIError(400, "invalid-field", "body.expectedClientState: required (null when the batch has no state yet)")
        }
        let limit = ItemBatch.maximumClientStateBytes
        let expected = try body.string("expectedClientState", maximumBytes: limit)
        let state = try body.requiredString("clientState", maximumBytes: limit)
        let deletions = try body.strings("deleteIdentifiers", maximumCount: configuration.maximumItemsPerRequest,
                                         maximumBytes: SearchableItem.Limits.identifierBytes)
        var batch = ItemBatch(upserts: try items(body, key: key), deleteIdentifiers: deletions)
        guard batch.upserts.count + deletions.count <= configuration.maximumItemsPerRequest else {
            throw APIError.tooLarge("at most \(configuration.maximumItemsPerRequest) items and deletions per batch")
        }
        batch.owner = key.owner
        batch.clientStateName = batchName(name, key: key)
        batch.expectedClientState = .some(expected.map { Array($0.utf8) })
        batch.clientState = Array(state.utf8)
        let result = try commitChecked(batch, name: name)
        return .json(["name": .string(name), "clientState": .string(state), "upserted": JSONValue(result.upserted),
                      "deleted": JSONValue(result.deleted)])
    }

    /// Commits a batch, saying which batch a compare-and-swap failure is about.
    private func commitChecked(_ batch: ItemBatch, name: String) throws -> (upserted: Int, deleted: Int) {
        do {
            return try write { try $0.commit(batch, now: configuration.clock()) }
        } catch let error as SearchIndexError where error.kind == .conflict {
            throw APIError(409, "conflict", "batch '\(name)': the stored client state is not expectedClientState; GET /v1/batches/\(name) returns it")
        }
    }
}
