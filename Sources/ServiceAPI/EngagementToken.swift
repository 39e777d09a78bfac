import FoundationEssentials
import Items
import SearchModel
import StoreSeams

/// Proof, carried by each search answer, of which items it showed and when: the
/// search page sends it back with its impressions and clicks, and anonymous engagement
/// counts only for items the token names and only while it is fresh. Without it, a script
/// could report clicks on any item it likes without ever having searched.
///
/// Layout (hexadecimal in JSON): version (1 byte), issue time in seconds since 1970 (4,
/// big-endian), the number of items n (1), n item digests (8 bytes each: SHA-256 of the
/// owner, a zero byte and the identifier), then the first 16 bytes of an HMAC-SHA256 over
/// all of it under the service's secret. Tokens are not secret and may be shared (a cached
/// answer carries one); what bounds a network's effect is counted elsewhere (each network
/// at most one impression and one click per item a day, ``SearchIndex/recordAnonymousEngagement(_:network:day:impression:click:)``).
public struct EngagementToken: Sendable {
    /// Items of an answer a token covers: the first ones, as many as the search page shows.
    public static let maximumItems = 20
    /// How long after its answer a token is accepted.
    package static let lifetime: TimeInterval = 3600
    package static let version: UInt8 = 1
    private static let digestBytes = 8
    private static let signatureBytes = 16

    let secret: [UInt8]

    public init(salt: [UInt8]) {
        secret = SHA256.hash(salt + Array("engagement-token".utf8))
    }

    public static func digest(_ key: ItemKey) -> [UInt8] {
        Array(SHA256.hash(Array(key.storedOwner.utf8) + [0] + Array(key.identifier.utf8)).prefix(digestBytes))
    }

    /// A token for the first ``maximumItems`` of `keys`, issued at `now`.
    public func issue(for keys: [ItemKey], now: Date) -> String {
        let shown = keys.prefix(Self.maximumItems)
        let seconds = UInt32(clamping: Int(max(0, now.timeIntervalSince1970)))
        var bytes: [UInt8] = [Self.version, UInt8(seconds >> 24), UInt8((seconds >> 16) & 0xFF), UInt8((seconds >> 8) & 0xFF),
                              UInt8(seconds & 0xFF), UInt8(shown.count)]
        for key in shown { bytes += Self.digest(key) }
        bytes += SHA256.hmac(key: secret, bytes).prefix(Self.signatureBytes)
        return SHA256.hex(bytes)
    }

    public enum Problem: Error, Sendable {
        case malformed, forged, expired
    }

    /// The item digests a token names, if it is well formed, signed with this secret and
    /// fresh at `now`.
    public func verify(_ token: String, now: Date) -> Result<Set<[UInt8]>, Problem> {
        guard token.utf8.count <= 2 * (6 + Self.maximumItems * Self.digestBytes + Self.signatureBytes),
            let bytes = SHA256.bytes(hex: token), bytes.count >= 6 + Self.signatureBytes, bytes[0] == Self.version
        else { return .failure(.malformed) }
        let count = Int(bytes[5])
        guard count <= Self.maximumItems, bytes.count == 6 + count * Self.digestBytes + Self.signatureBytes else { return .failure(.malformed) }
        let signed = Array(bytes.prefix(bytes.count - Self.signatureBytes))
        let expected = Array(SHA256.hmac(key: secret, signed).prefix(Self.signatureBytes))
        guard SHA256.equal(expected, Array(bytes.suffix(Self.signatureBytes))) else { return .failure(.forged) }
        let seconds = Double(bytes[1...4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        let age = now.timeIntervalSince1970 - seconds
        // A minute of clock difference between nodes is forgiven.
        guard age >= -60, age <= Self.lifetime else { return .failure(.expired) }
        var digests = Set<[UInt8]>()
        for index in 0..<count {
            let start = 6 + index * Self.digestBytes
            digests.insert(Array(bytes[start..<(start + Self.digestBytes)]))
        }
        return .success(digests)
    }
}
