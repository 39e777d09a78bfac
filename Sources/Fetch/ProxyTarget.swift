import Glibc
import WebURL

/// Where a request through a proxy may go. A proxy resolves and connects on its own, so
/// the address check cannot run on the socket: the target's host is resolved here (or
/// taken from `--resolve`), every address it has must pass the ``AddressPolicy``, and the
/// proxy is then asked to CONNECT to the checked address itself
/// (`CURLOPT_CONNECT_TO`), so what it connects to is what was checked.
enum ProxyTarget {
    /// The `HOST:PORT:ADDRESS:PORT` entry that pins `url` to a checked address, or why not.
    static func pin(_ url: WebURL, configuration: FetchConfiguration) -> Result<String, FetchError> {
        let host = url.host.hasPrefix("[") ? String(url.host.dropFirst().dropLast()) : url.host
        let port = url.effectivePort
        var addresses: [IPAddress] = []
        if let literal = IPAddress(host) {
            addresses = [literal]
        } else if let given = configuration.resolve.lazy.compactMap({ entry in Self.resolveEntry(entry, host: host, port: port) }).first {
            addresses = given
        } else {
            addresses = resolve(host)
        }
        guard let first = addresses.first else {
            return .failure(FetchError(.dns, "could not resolve \(host) to check it before the proxy connects"))
        }
        if let refused = addresses.first(where: { !configuration.addressPolicy.allows($0) }) {
            return .failure(.refusedAddress(refused.description))
        }
        let target: String
        if case .v6 = first { target = "[\(first)]" } else { target = first.description }
        return .success("\(url.host):\(port):\(target):\(port)")
    }

    /// The addresses of a `--resolve` entry (`HOST:PORT:ADDR[,ADDR]…`) for this host and port.
    private static func resolveEntry(_ entry: String, host: String, port: Int) -> [IPAddress]? {
        let parts = entry.split(separator: ":", maxSplits: 2).map(String.init)
        guard parts.count == 3, parts[0].lowercased() == host.lowercased(), Int(parts[1]) == port else { return nil }
        let addresses = parts[2].split(separator: ",").compactMap { IPAddress(String($0)) }
        return addresses.isEmpty ? nil : addresses
    }

    /// Every address the system resolver gives for `host`.
    private static func resolve(_ host: String) -> [IPAddress] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0 else { return [] }
        defer { freeaddrinfo(list) }
        var addresses: [IPAddress] = []
        var node = list
        while let current = node {
            if let address = current.pointee.ai_addr, let ip = IPAddress(socketAddress: address), !addresses.contains(ip) {
                addresses.append(ip)
            }
            node = current.pointee.ai_next
        }
        return addresses
    }
}
