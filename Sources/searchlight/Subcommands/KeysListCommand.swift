import Foundation
import JSON
import Service
import TextUtilities

/// `searchlight keys list [--data DIR] [--json]`
struct KeysListCommand: Command {
    static let spec = CommandSpec(
        name: "list",
        abstract: "List the API keys: id, owner, domain, when created and when revoked (never the secret).",
        options: [
            DataDirectory.option,
            StoreOption.option,
            Option.json,
        ],
        examples: ["searchlight keys list"])

    var data: DataDirectory
    var store: StoreOption
    var json: Bool

    init(arguments: ParsedArguments) throws(UsageError) {
        data = DataDirectory(arguments)
        store = try StoreOption(arguments)
        json = arguments.flag(Option.json)
    }

    func run() throws {
        guard store.url != nil || FileManager.default.fileExists(atPath: data.servicePath) || FileManager.default.fileExists(atPath: data.indexPath) else {
            throw CommandFailure("no keys in \(data.path): create one with `searchlight keys create`")
        }
        let keys = try store.keys(data).keys()
        if json {
            let list: [JSONValue] = keys.map { key in
                ["id": .string(key.id), "owner": .string(key.owner), "domain": .string(key.domain),
                 "created": .string(ISO8601.string(fromSeconds: key.created.timeIntervalSince1970)),
                 "revoked": key.revoked.map { .string(ISO8601.string(fromSeconds: $0.timeIntervalSince1970)) } ?? .null]
            }
            Console.writeLine(JSONWriter.string(["keys": .array(list)], style: .pretty))
            return
        }
        guard !keys.isEmpty else {
            Console.writeLine("No keys. Create one with `searchlight keys create --owner NAME --domain DOMAIN`.")
            return
        }
        for key in keys {
            let state = key.revoked.map { "revoked \(ISO8601.string(fromSeconds: $0.timeIntervalSince1970))" } ?? "active"
            Console.writeLine("\(key.id)  \(key.owner)  \(key.domain)  created \(ISO8601.string(fromSeconds: key.created.timeIntervalSince1970))  \(state)")
        }
    }
}

extension KeysListCommand {
    /// The options this command reads.
    enum Option {
        static let json = OptionSpec.flag("--json", help: "Print the keys as JSON.")
    }
}
