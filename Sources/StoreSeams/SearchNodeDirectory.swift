/// Where a router learns which search nodes serve a store, their shards and addresses and
/// how recently each reported (``CrawlStatus/Node``): the shared store's `nodes` table, or
/// a fixed list in tests.
public protocol SearchNodeDirectory: Sendable {
    func searchNodes() throws -> [CrawlStatus.Node]
    /// The shard count the store is split into for searches, when its operator set one
    /// (`searchlight shards --set N`); nil: routers follow the nodes.
    func shardCount() throws -> Int?
}
