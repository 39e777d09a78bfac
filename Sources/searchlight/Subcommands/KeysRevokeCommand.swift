import Foundation
import Service

/// `searchlight keys revoke ID [--data DIR]`
struct KeysRevokeCommand: Command {
    static let spec = CommandSpec(
        name: "revoke",
        abstract: "Revoke an API key by its id (as `keys list` shows it); it stops working at once.",
        arguments: [ArgumentSpec(name: "id", help: "The key's id.")],
        options: [DataDirectory.option, StoreOption.option],
        examples: ["searchlight keys revoke 3f2a9c01b7d4"])

    var data: DataDirectory
    var store: StoreOption
    var id: String

    init(arguments: ParsedArguments) throws(UsageError) {
        data = DataDirectory(arguments)
        store = try StoreOption(arguments)
        id = arguments.positionals[0]
    }

    func run() throws {
        guard store.url != nil || FileManager.default.fileExists(atPath: data.servicePath) || FileManager.default.fileExists(atPath: data.indexPath) else {
            throw CommandFailure("no keys in \(data.path): create one with `searchlight keys create`")
        }
        guard try store.keys(data).revokeKey(id: id) else { throw CommandFailure("no key with id \(id)") }
        Console.writeLine("Revoked key \(id).")
    }
}
