import Glibc

/// An IPv4 or IPv6 address.
public enum IPAddress: Sendable, Hashable, CustomStringConvertible {
    case v4(UInt32)
    case v6([UInt8])

    /// Parses dotted-quad IPv4 or textual IPv6 (brackets allowed).
    public init?(_ text: String) {
        var text = text
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            self = .v4(UInt32(bigEndian: v4.s_addr))
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            self = .v6(withUnsafeBytes(of: &v6) { Array($0) })
            return
        }
        return nil
    }

    /// Reads a `sockaddr` as libcurl hands it to the open-socket callback.
    public init?(socketAddress: UnsafePointer<sockaddr>) {
        switch Int32(socketAddress.pointee.sa_family) {
        case AF_INET:
            let address = UnsafeRawPointer(socketAddress).assumingMemoryBound(to: sockaddr_in.self).pointee
            self = .v4(UInt32(bigEndian: address.sin_addr.s_addr))
        case AF_INET6:
            var address = UnsafeRawPointer(socketAddress).assumingMemoryBound(to: sockaddr_in6.self).pointee.sin6_addr
            self = .v6(withUnsafeBytes(of: &address) { Array($0) })
        default:
            return nil
        }
    }

    public var description: String {
        switch self {
        case .v4(let value):
            return "\(value >> 24).\(value >> 16 & 0xFF).\(value >> 8 & 0xFF).\(value & 0xFF)"
        case .v6(let bytes):
            var address = in6_addr()
            withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: bytes) }
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count))
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// True for globally routable unicast addresses.
    public var isPublic: Bool {
        switch self {
        case .v4(let a):
            return !Self.v4NonPublic.contains { a & $0.mask == $0.network }
        case .v6(let b):
            // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and NAT64 (64:ff9b::/96).
            if b[0..<10].allSatisfy({ $0 == 0 }) && (b[10] == 0xFF && b[11] == 0xFF || b[10] == 0 && b[11] == 0)
                || b[0..<12].elementsEqual([0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0])
            {
                if b[0..<16].allSatisfy({ $0 == 0 }) { return false }  // ::
                if b[0..<15].allSatisfy({ $0 == 0 }) && b[15] == 1 { return false }  // ::1
                let v4 = UInt32(b[12]) << 24 | UInt32(b[13]) << 16 | UInt32(b[14]) << 8 | UInt32(b[15])
                return IPAddress.v4(v4).isPublic
            }
            if b[0] == 0xFF { return false }  // multicast
            if b[0] == 0xFE && b[1] & 0xC0 == 0x80 { return false }  // fe80::/10 link-local
            if b[0] == 0xFE && b[1] & 0xC0 == 0xC0 { return false }  // fec0::/10 site-local (deprecated)
            if b[0] & 0xFE == 0xFC { return false }  // fc00::/7 unique local
            if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0D && b[3] == 0xB8 { return false }  // 2001:db8::/32 documentation
            if b[0] == 0x01 && b[1..<8].allSatisfy({ $0 == 0 }) { return false }  // 100::/64 discard
            return b[0] & 0xE0 == 0x20  // only 2000::/3 is global unicast
        }
    }

    private static let v4NonPublic: [(network: UInt32, mask: UInt32)] = [
        (0x0000_0000, 0xFF00_0000),  // 0.0.0.0/8 "this network", unspecified
        (0x0A00_0000, 0xFF00_0000),  // 10.0.0.0/8 private
        (0x6440_0000, 0xFFC0_0000),  // 100.64.0.0/10 carrier-grade NAT
        (0x7F00_0000, 0xFF00_0000),  // 127.0.0.0/8 loopback
        (0xA9FE_0000, 0xFFFF_0000),  // 169.254.0.0/16 link-local, cloud metadata
        (0xAC10_0000, 0xFFF0_0000),  // 172.16.0.0/12 private
        (0xC000_0000, 0xFFFF_FF00),  // 192.0.0.0/24 IETF protocol assignments
        (0xC000_0200, 0xFFFF_FF00),  // 192.0.2.0/24 documentation
        (0xC0A8_0000, 0xFFFF_0000),  // 192.168.0.0/16 private
        (0xC612_0000, 0xFFFE_0000),  // 198.18.0.0/15 benchmarking
        (0xC633_6400, 0xFFFF_FF00),  // 198.51.100.0/24 documentation
        (0xCB00_7100, 0xFFFF_FF00),  // 203.0.113.0/24 documentation
        (0xE000_0000, 0xF000_0000),  // 224.0.0.0/4 multicast
        (0xF000_0000, 0xF000_0000),  // 240.0.0.0/4 reserved, broadcast
    ]
}
