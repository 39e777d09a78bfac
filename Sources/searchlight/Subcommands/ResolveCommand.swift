import Foundation
import Ingest
import ItemMapping
import Items
import JSON
import SearchIndex

/// `searchlight resolve ID [--owner NAME] [--data DIR] [--json]`
struct ResolveCommand: Command {
    static let spec = CommandSpec(
        name: "resolve",
        abstract: "Show the app record behind an ingested item (what objectFromUserActivity gives an app).",
        discussion: """
            Looks the item up in the index, then reads its record from the source database
            that `ingest` read it from: the source, entity and key, the attributes, and the
            keys of related records — only the attributes and relationships the source's mapping
            reads. --owner looks up a key owner's item (one ingested here with `ingest --owner`).
            """,
        arguments: [ArgumentSpec(name: "id", help: "The item's uniqueIdentifier (a search result's id).")],
        options: [DataDirectory.option, StoreOption.option, OwnerOption.option, Option.json],
        examples: ["searchlight resolve employee_Marian_Paul", "searchlight resolve company_Wasappli --json"])

    var identifier: String
    var data: DataDirectory
    var store: StoreOption
    var json: Bool
    var owner: OwnerOption

    init(arguments: ParsedArguments) throws(UsageError) {
        identifier = arguments.positionals[0]
        owner = try OwnerOption(arguments)
        data = DataDirectory(arguments)
        store = try StoreOption(arguments)
        json = arguments.flag(Option.json)
    }

    func run() throws {
        guard store.url != nil || FileManager.default.fileExists(atPath: data.indexPath) else {
            throw CommandFailure("no index at \(data.indexPath)")
        }
        guard let item = try store.items(data).item(owner.key(identifier)) else {
            throw CommandFailure("no item '\(identifier)' \(owner.name.map { "of owner \($0) " } ?? "")in the index")
        }
        guard let reference = item.record else {
            throw CommandFailure("'\(identifier)' is a \(item.source.rawValue) item, not one ingested from an app database")
        }
        let found: (record: ResolvedRecord, database: String)
        do {
            found = try RecordLookup.record(reference, owner: owner.name, data: data)
        } catch let failure as RecordLookup.Failure {
            throw CommandFailure("'\(identifier)' comes from \(reference.entity) \(reference.key) of source '\(reference.name)': \(failure)")
        }
        let record = found.record
        if json {
            var object = record.json.objectValue ?? JSONObject()
            object["id"] = .string(identifier)
            Console.writeLine(JSONWriter.string(.object(object), style: .pretty))
            return
        }
        Console.writeLine("\(identifier) → \(record.source) \(record.entity) \(record.key)  (\(found.database))")
        for attribute in record.attributes {
            let value = JSONWriter.string(ResolvedRecord.value(attribute.value, type: attribute.type))
            Console.writeLine("  \(attribute.name): \(value)")
        }
        for relationship in record.relationships {
            let keys = relationship.keys.isEmpty ? "none" : relationship.keys.prefix(20).joined(separator: ", ") + (relationship.keys.count > 20 ? ", …" : "")
            Console.writeLine("  \(relationship.name) → \(relationship.entity) \(keys)")
        }
    }
}

extension ResolveCommand {
    enum Option {
        static let json = OptionSpec.flag("--json", help: "Print the record as JSON.")
    }
}
