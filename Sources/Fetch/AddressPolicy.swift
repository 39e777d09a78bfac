import WebURL

/// Which network addresses a crawler may connect to.
///
/// A public crawler must not be turned against its own network: by default private
/// (RFC 1918, RFC 4193), loopback, link-local (including 169.254.169.254, the cloud
/// metadata address), multicast, unspecified, carrier-grade NAT, benchmarking and
/// reserved ranges are refused, for IPv4 and IPv6 (IPv4-mapped and NAT64 addresses are
/// judged by the IPv4 address inside). The check runs on the address actually being
/// connected to, so a host name that resolves to 127.0.0.1 is caught however it is named.
public struct AddressPolicy: Sendable, Hashable {
    public var allowsNonPublicAddresses: Bool

    public init(allowsNonPublicAddresses: Bool = false) {
        self.allowsNonPublicAddresses = allowsNonPublicAddresses
    }

    public static let publicOnly = AddressPolicy()
    public static let any = AddressPolicy(allowsNonPublicAddresses: true)

    public func allows(_ address: IPAddress) -> Bool {
        allowsNonPublicAddresses || address.isPublic
    }
}
