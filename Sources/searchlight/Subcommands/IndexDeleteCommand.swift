import Foundation
import SearchIndex

/// `searchlight index delete --id ID... | --domain D... | --all [--data DIR]`
struct IndexDeleteCommand: Command {
    static let spec = CommandSpec(
        name: "delete",
        abstract: "Delete items by identifier, by domain identifier, or all of them.",
        discussion: "Deleting a domain identifier also deletes the ones below it: com.example deletes com.example.people, not com.examples.",
        options: [
            DataDirectory.option,
            StoreOption.option,
            Option.id,
            Option.domain,
            Option.all,
        ],
        examples: ["searchlight index delete --id person-42", "searchlight index delete --domain com.example.staff"])

    enum Target {
        case identifiers([String])
        case domains([String])
        case all
    }

    var data: DataDirectory
    var store: StoreOption
    var target: Target

    init(arguments: ParsedArguments) throws(UsageError) {
        data = DataDirectory(arguments)
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
        let deleted: Int
        switch target {
        case .identifiers(let ids): deleted = try items.commit(SearchIndex.Batch(deleteIdentifiers: ids), now: Date()).deleted
        case .domains(let domains): deleted = try items.commit(SearchIndex.Batch(deleteDomains: domains), now: Date()).deleted
        case .all: deleted = try items.deleteAll(owner: nil)
        }
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
