import Foundation
import HTTPServer
import Items
import JSON
import SearchIndex
import ServiceAPI
import StoreSeams
import TextUtilities

/// Pushed items (the CoreSpotlight model): a key's items are its owner's, identified by
/// owner and identifier, so two tenants' `tart`s never meet.
extension SearchService {
    /// Reads `items` from a body, each one owned by the key and allowed for its domain.
    func items(_ body: FieldReader, key: APIKey) throws -> [ValidItem] {
        let list = try body.array("items", maximumCount: configuration.maximumItemsPerRequest) ?? []
        let now = configuration.clock()
        var items: [ValidItem] = []
        for (index, value) in list.enumerated() {
            let item: ValidItem
            do {
                item = try SearchableItem.pushed(value, path: "items[\(index)]", owner: key.owner, now: now)
            } catch {
                throw SearchIndexError.invalidField(error)
            }
            guard Ownership.allows(item.item, forDomain: key.domain) else {
                throw APIError.forbidden("items[\(index)]: a key for \(key.domain) may only write items whose webURL is on \(key.domain) "
                    + "and whose domainIdentifier, if any, is under \(Ownership.reversedDomain(key.domain))")
            }
            items.append(item)
        }
        return items
    }

    func pushItems(_ request: HTTPServerRequest) throws -> HTTPServerResponse {
        let key = try authenticated(request)
        let items = try items(try body(request, known: ["items"]), key: key)
        var batch = ItemBatch(upserts: items)
        batch.owner = key.owner
        let result = try write { try $0.commit(batch, now: configuration.clock()) }
        return .json(["upserted": JSONValue(result.upserted)])
    }

    /// Deletes the caller's items by the ids in the query (`?id=…&id=…`) or in a JSON body
    /// (`{"ids": […]}`, for long lists); without either, every item of the caller.
    func deleteItems(_ request: HTTPServerRequest) throws -> HTTPServerResponse {
        let key = try authenticated(request)
        var ids = request.queryValues("id")
        if let bad = ids.first(where: { $0.isEmpty || $0.utf8.count > SearchableItem.Limits.identifierBytes || Route.hasControlCharacters($0) }) {
            throw APIError(400, "invalid-field", "id: '\(bad.prefix(100))' is empty, longer than \(SearchableItem.Limits.identifierBytes) bytes or holds control characters")
        }
        if !request.body.isEmpty || request.bodyTooLarge {
            let body = try body(request, known: ["ids"])
            ids += try body.strings("ids", maximumCount: configuration.maximumItemsPerRequest,
                                    maximumBytes: SearchableItem.Limits.identifierBytes)
        }
        guard !ids.isEmpty else {
            return .json(["deleted": JSONValue(try write { try $0.deleteAll(owner: key.owner) })])
        }
        guard ids.count <= configuration.maximumItemsPerRequest else {
            throw APIError.tooLarge("\(ids.count) ids; at most \(configuration.maximumItemsPerRequest) per request")
        }
        var batch = ItemBatch(deleteIdentifiers: ids)
        batch.owner = key.owner
        return .json(["deleted": JSONValue(try write { try $0.commit(batch, now: configuration.clock()) }.deleted)])
    }

    func deleteDomain(_ request: HTTPServerRequest, _ domainIdentifier: String) throws -> HTTPServerResponse {
        let key = try authenticated(request)
        guard Ownership.allows(domainIdentifier: domainIdentifier, forDomain: key.domain) else {
            throw APIError.forbidden("a key for \(key.domain) may only delete domains under \(Ownership.reversedDomain(key.domain))")
        }
        var batch = ItemBatch(deleteDomains: [domainIdentifier])
        batch.owner = key.owner
        return .json(["deleted": JSONValue(try write { try $0.commit(batch, now: configuration.clock()) }.deleted)])
    }

    /// The app record a caller's ingested item came from: the reference it pushed, and the
    /// record itself only when this service ingested that source under the caller's own
    /// name (``Configuration/recordResolver``). Anyone else's item gets the same 404 as
    /// one that does not exist.
    func itemSource(_ request: HTTPServerRequest, _ id: String) throws -> HTTPServerResponse {
        let key = try authenticated(request)
        guard let item = try items.item(ItemKey(owner: key.owner, identifier: id)) else { throw APIError.notFound("no item '\(id)' of yours") }
        guard let record = item.record else { throw APIError.notFound("item '\(id)' was not ingested from an app database") }
        var fields: [(String, JSONValue)] = [("id", .string(id)), ("source", record.json)]
        if let resolved = try configuration.recordResolver?(key.owner, record) { fields.append(("record", resolved)) }
        return .json(.object(JSONObject(fields)))
    }

    /// Where the caller's own item ranks for a query, and why (``Findability``): `q`, and
    /// as for a search `platform`, `installed` and `typing`. Anyone else's item gets the
    /// same 404 as one that does not exist.
    func itemFindability(_ request: HTTPServerRequest, _ id: String) throws -> HTTPServerResponse {
        let key = try authenticated(request)
        let names: Set<String> = ["q", "platform", "installed", "typing"]
        for item in request.rawQueryItems {
            let name = PercentDecoding.decode(item.name, plusIsSpace: true)
            guard names.contains(name) else {
                throw APIError.invalidQuery("unknown parameter '\(name.prefix(64))': this endpoint takes " + names.sorted().joined(separator: ", "))
            }
        }
        guard let query = request.queryValue("q") else { throw APIError.invalidQuery("q is required") }
        guard let platform = AppTarget.Platform(rawValue: request.queryValue("platform") ?? "ios") else {
            throw APIError.invalidQuery("platform must be ios or android")
        }
        let installed = Set(request.queryValues("installed").flatMap { $0.split(separator: ",") }.map(String.init))
        var search = SearchRequest(query, limit: 1, platform: platform, installed: installed, now: configuration.clock())
        search.typing = ["1", "true"].contains(request.queryValue("typing") ?? "")
        try checkCaughtUp()
        let report = try readers.withReader { try $0.findability(of: ItemKey(owner: key.owner, identifier: id), for: search) }
        if report.findings.contains(.notIndexed) { throw APIError.notFound("no item '\(id)' of yours") }
        return .json(report.json)
    }
}
