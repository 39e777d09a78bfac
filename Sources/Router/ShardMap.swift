import StoreSeams

/// Which nodes a router may ask for each shard, decided from what the store's node table
/// says (``SearchNodeDirectory``): a node counts while it reports (it heartbeats after every
/// pass over the change log, so a node that stopped, or that is rebuilding its copy, falls
/// silent) and has an address. The shard count is the store's when its operator set one
/// (`searchlight shards --set N`: a re-shard switches routers at once), else the one most
/// live nodes hold (the larger wins a tie); a shard with no live node is missing, and
/// answers say so.
public struct ShardMap: Sendable, Equatable {
    public struct Replica: Sendable, Hashable {
        public var name: String
        /// `http://host:port`, without a trailing slash.
        public var address: String
    }

    /// How many shards the index is split into (1: every node holds the whole index).
    public let count: Int
    /// For each shard, its live replicas by name.
    public let replicas: [[Replica]]

    public static let empty = ShardMap(count: 0, replicas: [])

    init(count: Int, replicas: [[Replica]]) {
        self.count = count
        self.replicas = replicas
    }

    /// The map for `nodes`, counting those silent for at most `maximumSilence` seconds, over
    /// `count` shards when the store sets it. A node advertised over plain http on another
    /// machine is left out unless `plainHTTP` allows it: the router's credential would cross
    /// the network in clear (``RouterCredential``).
    public init(nodes: [CrawlStatus.Node], maximumSilence: Double, count stored: Int? = nil, plainHTTP: Bool = false) {
        let live = nodes.filter { node in
            node.silentFor <= maximumSilence && node.address.map { Self.usable($0) && (plainHTTP || !Self.sendsInClear($0)) } == true
        }
        var byCount: [Int: Int] = [:]
        for node in live { byCount[node.shard.count, default: 0] += 1 }
        let valid = stored.flatMap { (1...Shard.maximumCount).contains($0) ? $0 : nil }
        guard let count = valid ?? byCount.max(by: { ($0.value, $0.key) < ($1.value, $1.key) })?.key else {
            self = .empty
            return
        }
        var replicas = [[Replica]](repeating: [], count: count)
        for node in live.sorted(by: { $0.name < $1.name }) where node.shard.count == count {
            let address = node.address!
            replicas[node.shard.index].append(Replica(name: node.name, address: address.hasSuffix("/") ? String(address.dropLast()) : address))
        }
        self.init(count: count, replicas: replicas)
    }

    /// Shards no live node holds.
    public var missing: [Int] { replicas.indices.filter { replicas[$0].isEmpty } }

    /// Whether a request to `address` would cross a network in clear: plain http to a host
    /// that is not this machine's loopback (`localhost`, 127.0.0.0/8, ::1).
    public static func sendsInClear(_ address: String) -> Bool {
        guard address.lowercased().hasPrefix("http://") else { return false }
        var host = Substring(address.dropFirst("http://".count))
        if let end = host.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) { host = host[..<end] }
        if let at = host.lastIndex(of: "@") { host = host[host.index(after: at)...] }
        if host.hasPrefix("[") {
            host = host.dropFirst().prefix { $0 != "]" }
        } else if let colon = host.lastIndex(of: ":") {
            host = host[..<colon]
        }
        let name = host.lowercased()
        if name == "localhost" || name == "::1" { return false }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        if octets.count == 4, octets.allSatisfy({ UInt8($0) != nil }), octets[0] == "127" { return false }
        return true
    }

    /// An address a router can send to: http(s), at most 512 bytes (the table is written by
    /// nodes, but a router trusts nothing it reads).
    static func usable(_ address: String) -> Bool {
        address.utf8.count <= 512 && (address.hasPrefix("http://") || address.hasPrefix("https://"))
    }
}
