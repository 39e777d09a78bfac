import Foundation
import Items
import SearchIndex

/// `searchlight index delete --id ID... | --domain D... | --all [--owner NAME] [--data DIR]`
struct IndexDeleteCommand: Command {
    static let spec = CommandSpec(
        name: "delete",
        abstract: "Delete items by identifier, by domain identifier, or all of them.",
        discussion: """
            Deleting a domain identifier also deletes the ones below it: com.example deletes com.example.people, not com.examples.
            --id and --domain act on the operator's items (crawled, added or ingested here), or with --owner on that key owner's;
            --all deletes every item of every owner, or with --owner all of that owner's.
            """,
        options: [
            DataDirectory.option,
            StoreOption.option,
            Option.id,
            Option.domain,
            Option.all,
            OwnerOption.option,
        ],
        examples: ["searchlight index delete --id person-42", "searchlight index delete --domain com.example.staff",
                   "searchlight index delete --id tart --owner recipes-app"])

    enum Target {
        case identifiers([String])
        case domains([String])
        case all
    }

    var data: DataDirectory
    var store: StoreOption
    var target: Target
    var owner: OwnerOption

    init(arguments: ParsedArguments) throws(UsageError) {
        data = DataDirectory(arguments)
        owner = try OwnerOption(arguments)
        store = try StoreOption(arguments)
        let ids = arguments.values(Option.id)
        let domains = arguments.values(Option.domain)
        let all = arguments.flag(Option.all)
        switch (ids.isEmpty, domains.isEmpty, all) {
        case (false, true, false): target = .identifiers(ids)
        case (true, false, false): target = .domains(domains)
        case (true, true, true): target = .all
        default: throw UsageError("give exactly one of --id, --domain or --all")
        }
    }

    func run() throws {
        if store.url == nil, !FileManager.default.fileExists(atPath: data.indexPath) {
            throw CommandFailure("no index at \(data.indexPath)")
        }
        let items = try store.items(data)
        var batch: ItemBatch
        switch target {
        case .identifiers(let ids): batch = ItemBatch(deleteIdentifiers: ids)
        case .domains(let domains): batch = ItemBatch(deleteDomains: domains)
        case .all:
            let deleted = try items.deleteAll(owner: owner.name)
            Console.writeLine("deleted \(deleted) item\(deleted == 1 ? "" : "s")")
            return
        }
        batch.owner = owner.name
        let deleted = try items.commit(batch, now: Date()).deleted
        Console.writeLine("deleted \(deleted) item\(deleted == 1 ? "" : "s")")
    }
}

extension IndexDeleteCommand {
    /// The options this command reads.
    enum Option {
        static let id = OptionSpec.value("--id", "unique-identifier", help: "Delete the item with this identifier.", repeatable: true)
        static let domain = OptionSpec.value("--domain", "domain-identifier", help: "Delete the items of this domain identifier and below.", repeatable: true)
        static let all = OptionSpec.flag("--all", help: "Delete every item.")
    }
}
