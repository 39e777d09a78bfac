import Foundation
import JSON
import PostgresStore
import StoreSeams

/// `searchlight shards --store URL [--set N | --unset] [--json]`
struct ShardsCommand: Command {
    static let spec = CommandSpec(
        name: "shards",
        abstract: "Show or set how many shards a shared store's searches are split into, and which nodes hold each.",
        discussion: """
            Search nodes hold a shard with `serve --store URL --shard K/N`; routers (`serve --router`)
            ask one live node of every shard. Without a count set, routers follow the count most
            live nodes hold. --set N fixes it: routers switch at once. A re-shard: start nodes of
            the new count beside the old (each builds its shard from the store), wait until
            `searchlight shards` lists a live node for every new shard, --set the new count, then
            stop the old nodes.
            """,
        options: [StoreOption.option, Option.set.spec, Option.unset, Option.json],
        examples: ["searchlight shards --store postgres://searchlight@db/searchlight", "searchlight shards --set 4"])

    var store: StoreOption
    var count: Int?
    var unset: Bool
    var json: Bool

    init(arguments: ParsedArguments) throws(UsageError) {
        store = try StoreOption(arguments)
        guard store.url != nil else { throw UsageError("shards needs --store (or SEARCHLIGHT_STORE): shards split a shared store's index") }
        count = try arguments.int(Option.set.spec, in: Option.set.range)
        unset = arguments.flag(Option.unset)
        if count != nil, unset { throw UsageError("give --set N or --unset, not both") }
        json = arguments.flag(Option.json)
    }

    func run() throws {
        guard let shared = try store.open() else { return }
        if let count { try shared.setShardCount(count) }
        if unset { try shared.setShardCount(nil) }
        let stored = try shared.shardCount()
        let nodes = try shared.searchNodes()
        let shown = stored ?? nodes.map(\.shard.count).max() ?? 1
        if json {
            Console.writeLine(JSONWriter.string(.object(JSONObject([
                ("shards", stored.map { JSONValue($0) } ?? .null),
                ("nodes", .array(nodes.map { node in
                    ["name": .string(node.name), "shard": .string(node.shard.description), "address": node.address.map(JSONValue.string) ?? .null,
                     "behind": JSONValue(node.behind), "silentFor": JSONValue(node.silentFor)]
                })),
            ])), style: .pretty))
            return
        }
        Console.writeLine(stored.map { "Searches are split into \($0) shard(s)." }
            ?? "No shard count set: routers follow the count most live nodes hold (set one with --set N).")
        for index in 0..<shown {
            let holders = nodes.filter { $0.shard.count == shown && $0.shard.index == index }
            let list = holders.map { "\($0.name) (\(Int($0.silentFor)) s ago, \($0.behind) behind)" }.joined(separator: ", ")
            Console.writeLine("  shard \(index)/\(shown): \(holders.isEmpty ? "no node" : list)")
        }
        let others = nodes.filter { $0.shard.count != shown }
        if !others.isEmpty {
            Console.writeLine("  nodes of another count (a re-shard, or the whole index): " + others.map { "\($0.name) \($0.shard)" }.joined(separator: ", "))
        }
    }
}

extension ShardsCommand {
    /// The options this command reads.
    enum Option {
        static let set = (spec: OptionSpec.value("--set", "n", help: "Split searches into n shards (1 to \(Shard.maximumCount))."),
                          range: 1...Shard.maximumCount)
        static let unset = OptionSpec.flag("--unset", help: "Forget the count: routers follow the nodes again.")
        static let json = OptionSpec.flag("--json", help: "Print the count and the nodes as JSON.")
    }
}
