import Foundation
import HTTPServer
import Items
import JSON
import ServiceAPI
import StoreSeams
import WebURL

/// Public activities (the NSUserActivity model with `isEligibleForPublicIndexing`).
extension SearchService {
    /// One device's report. The activity becomes a public item of the key's owner once
    /// ``Configuration/activityThreshold`` distinct devices reported it from as many
    /// distinct networks (``ClientNetwork``): a key that invents device ids from one server
    /// counts as one network. Another owner's activity of the same page is another item.
    func reportActivity(_ request: HTTPServerRequest) throws -> HTTPServerResponse {
        let key = try authenticated(request)
        let body = try body(request, known: ["activityType", "title", "webpageURL", "keywords", "contentDescription", "thumbnailURL",
                                             "deviceId", "apps"])
        let now = configuration.clock()
        let report = try ActivityReport(body)
        let item = try report.item(owner: key.owner, now: now)
        guard let host = WebURL(report.webpageURL)?.host, Ownership.isHost(host, within: key.domain) else {
            throw APIError.forbidden("a key for \(key.domain) may only report activities whose webpageURL is on \(key.domain)")
        }
        let deviceHash = SHA256.hash(deviceSalt + Array(report.deviceID.utf8))
        let networkHash = SHA256.hash(deviceSalt + Array(("network:" + ClientNetwork.of(request.remoteAddress)).utf8))
        let reach = try keys.recordActivity(id: report.itemID, owner: key.owner, type: report.activityType,
                                             webpageURL: report.webpageURL, deviceHash: deviceHash, networkHash: networkHash, now: now)
        let isPublic = min(reach.devices, reach.networks) >= configuration.activityThreshold
        if isPublic {
            var batch = ItemBatch(upserts: [item])
            batch.owner = key.owner
            try write { try $0.commit(batch, now: now) }
        }
        var response = HTTPServerResponse.json([
            "id": .string(report.itemID), "devices": JSONValue(reach.devices), "networks": JSONValue(reach.networks),
            "threshold": JSONValue(configuration.activityThreshold), "public": .bool(isPublic),
        ])
        response.status = 202
        return response
    }
}
