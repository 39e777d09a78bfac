import StoreSeams

/// How a node knows that a request on its shard routes (`/v1/shard/…`) comes from a router
/// of the same store: a header only processes that can read the store's secret salt can
/// make (an HMAC of it). Those routes carry bodies without an API key, so without it any
/// client could make a node buffer them; with it, a router's requests share the body budget
/// as one principal rather than the small anonymous one of its network.
public struct RouterCredential: Sendable, Equatable {
    public static let header = "X-Searchlight-Router"
    public let value: String

    public init(salt: [UInt8]) {
        value = SHA256.hex(SHA256.hmac(key: salt, Array("searchlight-shard-router".utf8)))
    }

    func accepts(_ presented: String?) -> Bool {
        guard let presented, presented.utf8.count == value.utf8.count else { return false }
        return SHA256.equal(Array(presented.utf8), Array(value.utf8))
    }
}
