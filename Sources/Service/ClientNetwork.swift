import Fetch

/// The network a client address belongs to, for telling devices apart: an IPv4 address's
/// /24, an IPv6 address's /48 (one site's allocation), the address itself otherwise. Many
/// devices behind one home or office router share one; one server inventing device ids
/// has only its own.
enum ClientNetwork {
    static func of(_ address: String?) -> String {
        guard let address, let ip = IPAddress(address) else { return "unknown" }
        switch ip {
        case .v4(let value): return "v4:\(value >> 8)"
        case .v6(let bytes):
            // An IPv4-mapped address is an IPv4 client.
            if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
                return "v4:\(UInt32(bytes[12]) << 16 | UInt32(bytes[13]) << 8 | UInt32(bytes[14]))"
            }
            return "v6:" + bytes[0..<6].map { String($0, radix: 16) }.joined(separator: ":")
        }
    }
}
