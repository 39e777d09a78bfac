import Foundation
import HTTPServer
import HTTPTypes
import Items
import JSON
import SearchIndex
import ServiceAPI
import StoreSeams

/// Impressions and clicks, the ranking's engagement signal, and the rules that keep it
/// honest (README, "Engagement"):
/// - With a key: only for the key owner's items, or pages on the key's domain; at most
///   ``Configuration/keyedEngagementBurst`` events at once and
///   ``Configuration/keyedEngagementPerSecond`` after that, per key.
/// - Without one (the search page): only for items the answer's `engagementToken` names,
///   within an hour of the answer; at most one impression and one click per item, client
///   network (/24, /56) and day, a click only after that network's impression; requests
///   rate-limited per network and overall; and the ranking counts anonymous engagement
///   only once ``Ranking/anonymousNetworkThreshold`` networks stand behind it.
extension SearchService {
    func recordEngagement(_ request: HTTPServerRequest) throws -> HTTPServerResponse {
        let now = configuration.clock()
        guard request.header("Authorization") != nil else { return try recordAnonymousEngagement(request, now: now) }
        let key = try authenticated(request)
        let body = try body(request, known: ["query", "events"])
        _ = try body.requiredString("query", maximumBytes: 1024)
        let counts = try events(body)
        let total = counts.values.reduce(0) { $0 + $1.impressions + $1.clicks }
        try limits.admit(key: key.id, events: total, now: now)
        var recorded = 0
        var unknown = 0
        var foreign = 0
        for (id, count) in counts.sorted(by: { $0.key < $1.key }) {
            // The owner's own item, else the operator's page on the key's domain.
            if let item = try items.item(ItemKey(owner: key.owner, identifier: id)) ?? items.item(ItemKey(owner: nil, identifier: id)) {
                guard Ownership.mayReportEngagement(on: item, key: key) else {
                    foreign += 1
                    continue
                }
                try items.recordEngagement(item.key, impressions: count.impressions, clicks: count.clicks)
                recorded += 1
            } else {
                unknown += 1
            }
        }
        if recorded > 0 { try catchUpReplica() }
        if recorded == 0, foreign > 0 {
            throw APIError.forbidden("a key for \(key.domain) may report engagement only for its owner's items or pages on \(key.domain)")
        }
        return .json(["items": JSONValue(recorded), "unknownItems": JSONValue(unknown), "foreignItems": JSONValue(foreign)])
    }

    private func recordAnonymousEngagement(_ request: HTTPServerRequest, now: Date) throws -> HTTPServerResponse {
        let network = ClientNetwork.forLimits(request.remoteAddress)
        try limits.admit(network: network, now: now)
        let body = try body(request, known: ["query", "events", "platform", "installed", "token"])
        _ = try body.string("query", maximumBytes: 1024)
        _ = try body.string("platform", maximumBytes: 16)
        _ = try body.strings("installed", maximumCount: SearchRequest.Limits.installedApps, maximumBytes: SearchRequest.Limits.installedAppBytes)
        guard let token = try body.string("token", maximumBytes: 1024) else {
            throw APIError(400, "invalid-field", "body.token: required without a key: the engagementToken of the search answer that showed the results")
        }
        let shown: Set<[UInt8]>
        switch tokens.verify(token, now: now) {
        case .success(let digests): shown = digests
        case .failure(.expired): throw APIError(403, "token-expired", "the engagementToken is more than an hour old; search again")
        case .failure: throw APIError(403, "invalid-token", "body.token is not an engagementToken this service issued")
        }
        let counts = try events(body, maximumCount: 2 * EngagementToken.maximumItems)
        let networkHash = SHA256.hash(deviceSalt + Array(("engagement:" + network).utf8))
        let day = Int((now.timeIntervalSince1970 / 86_400).rounded(.down))
        var impressions = 0
        var clicks = 0
        var foreign = 0
        for (id, count) in counts.sorted(by: { $0.key < $1.key }) {
            let keys = try items.keys(identifier: id, limit: 8).filter { shown.contains(EngagementToken.digest($0)) }
            guard !keys.isEmpty else {
                foreign += 1
                continue
            }
            for key in keys {
                let counted = try items.recordAnonymousEngagement(key, network: networkHash, day: day, impression: count.impressions > 0,
                                                                  click: count.clicks > 0)
                impressions += counted.impression ? 1 : 0
                clicks += counted.click ? 1 : 0
            }
        }
        if impressions + clicks > 0 { try catchUpReplica() }
        if foreign > 0, foreign == counts.count {
            throw APIError.forbidden("without a key, engagement counts only for results the token's search answer showed")
        }
        return .json(["impressions": JSONValue(impressions), "clicks": JSONValue(clicks), "foreignItems": JSONValue(foreign)])
    }

    /// The events of a body, as impressions and clicks per item id.
    private func events(_ body: FieldReader, maximumCount: Int? = nil) throws -> [String: (impressions: Int, clicks: Int)] {
        let events = try body.array("events", maximumCount: maximumCount ?? configuration.maximumItemsPerRequest) ?? []
        var counts: [String: (impressions: Int, clicks: Int)] = [:]
        for (index, event) in events.enumerated() {
            let reader = try FieldReader(value: event, path: "body.events[\(index)]")
            try reader.rejectUnknown(["id", "type"])
            let id = try reader.requiredString("id", maximumBytes: SearchableItem.Limits.identifierBytes)
            switch try reader.requiredString("type", maximumBytes: 32) {
            case "impression": counts[id, default: (0, 0)].impressions += 1
            case "click": counts[id, default: (0, 0)].clicks += 1
            default: throw APIError(400, "invalid-field", "body.events[\(index)].type: must be \"impression\" or \"click\"")
            }
        }
        return counts
    }
}

/// The rate limits on engagement reports (``SearchService/Configuration``), per client
/// network and overall for anonymous reports, per key for keyed ones.
struct EngagementLimits: Sendable {
    let perNetwork: RateLimiter
    let overall: RateLimiter
    let perKey: RateLimiter

    init(_ configuration: SearchService.Configuration) {
        perNetwork = RateLimiter(burst: configuration.anonymousEngagementBurst, perSecond: configuration.anonymousEngagementPerSecond)
        overall = RateLimiter(burst: 2 * configuration.anonymousEngagementPerSecondOverall,
                              perSecond: configuration.anonymousEngagementPerSecondOverall, capacity: 1)
        perKey = RateLimiter(burst: configuration.keyedEngagementBurst, perSecond: configuration.keyedEngagementPerSecond)
    }

    func admit(network: String, now: Date) throws {
        let seconds = now.timeIntervalSince1970
        let local = perNetwork.allow(network, now: seconds)
        guard local.allowed else { throw Self.limited(local.retryAfter, "this network sends engagement faster than allowed") }
        let global = overall.allow("all", now: seconds)
        guard global.allowed else { throw Self.limited(global.retryAfter, "the service is taking all the anonymous engagement it can") }
    }

    func admit(key: String, events: Int, now: Date) throws {
        let verdict = perKey.allow(key, cost: Double(events), now: now.timeIntervalSince1970)
        guard verdict.allowed else { throw Self.limited(verdict.retryAfter, "this key reports engagement faster than allowed") }
    }

    private static func limited(_ retryAfter: Double, _ message: String) -> APIError {
        var error = APIError(429, "rate-limited", message + "; try again later")
        let seconds = retryAfter.isFinite ? max(1, Int(retryAfter.rounded(.up))) : 3600
        error.headers = [HTTPField("Retry-After", String(min(seconds, 3600)))]
        return error
    }
}
