import ServiceAPI
import WebURL

/// The network a client address belongs to: an IPv4 address's /24, an IPv6 address's
/// first `ipv6PrefixBytes` bytes, the address itself otherwise. Many devices behind one
/// home or office router share one; one server inventing device ids has only its own.
///
/// Activities count devices by /48 (one site's allocation); the rate limits and the
/// anonymous engagement count by /56, a typical home's IPv6 prefix.
enum ClientNetwork {
    static func of(_ address: String?, ipv6PrefixBytes: Int = 6) -> String {
        guard let address, let ip = IPAddress(address) else { return "unknown" }
        switch ip {
        case .v4(let value): return "v4:\(value >> 8)"
        case .v6(let bytes):
            // An IPv4-mapped address is an IPv4 client.
            if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
                return "v4:\(UInt32(bytes[12]) << 16 | UInt32(bytes[13]) << 8 | UInt32(bytes[14]))"
            }
            return "v6:" + bytes[0..<min(16, max(1, ipv6PrefixBytes))].map { String($0, radix: 16) }.joined(separator: ":")
        }
    }

    /// The /24 or /56 of a client, as the rate limits and anonymous engagement count them.
    static func forLimits(_ address: String?) -> String { of(address, ipv6PrefixBytes: 7) }
}
