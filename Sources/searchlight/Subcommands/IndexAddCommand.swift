import Foundation
import Items
import JSON
import SearchIndex

/// `searchlight index add FILE.json [--data DIR] [--batch NAME --client-state TEXT]`
struct IndexAddCommand: Command {
    static let spec = CommandSpec(
        name: "add",
        abstract: "Add or replace the items in a JSON file, in one transaction.",
        discussion: """
            The file holds {"items": [...]} (or just the array) in CoreSpotlight's names:
            uniqueIdentifier and title are required; domainIdentifier, contentDescription,
            keywords, thumbnailURL, webURL, expirationDate (ISO 8601; default one month) and
            apps ([{"platform", "appStoreId" or "package", "deepLink"}]) are optional. An item
            whose uniqueIdentifier exists replaces it whole. Either every item is added or
            none is.
            """,
        arguments: [ArgumentSpec(name: "file", help: "The JSON file ('-' for standard input).")],
        options: [
            DataDirectory.option,
            StoreOption.option,
            Option.clientState,
            Option.batch,
        ],
        examples: ["searchlight index add people.json --client-state 'last=42'"])

    var file: String
    var data: DataDirectory
    var store: StoreOption
    var clientState: String?
    var batchName: String

    init(arguments: ParsedArguments) throws(UsageError) {
        file = arguments.positionals[0]
        data = DataDirectory(arguments)
        store = try StoreOption(arguments)
        clientState = arguments.value(Option.clientState)
        batchName = arguments.value(Option.batch) ?? "default"
        if let state = clientState, state.utf8.count > ItemBatch.maximumClientStateBytes {
            throw UsageError("--client-state is \(state.utf8.count) bytes; at most \(ItemBatch.maximumClientStateBytes) are kept")
        }
    }

    func run() throws {
        let bytes: [UInt8]
        if file == "-" {
            bytes = Array(FileHandle.standardInput.readDataToEndOfFile())
        } else {
            guard let contents = FileManager.default.contents(atPath: file) else {
                throw CommandFailure("cannot read '\(file)': no such file, or not readable")
            }
            bytes = Array(contents)
        }
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes: bytes)
        } catch {
            throw CommandFailure("\(file) is not valid JSON: \(error)")
        }
        guard let list = document["items"]?.arrayValue ?? document.arrayValue else {
            throw CommandFailure("\(file): expected {\"items\": [...]} or an array of items")
        }
        var items: [ValidItem] = []
        for (index, value) in list.enumerated() {
            do {
                items.append(try SearchableItem.pushed(value, path: "items[\(index)]"))
            } catch {
                throw SearchIndexError.invalidField(error)
            }
        }
        var batch = ItemBatch(upserts: items)
        batch.clientState = clientState.map { Array($0.utf8) }
        batch.clientStateName = batchName
        try store.items(data).commit(batch, now: Date())
        Console.writeLine("added \(items.count) item\(items.count == 1 ? "" : "s") to \(store.url.map { _ in "the shared store" } ?? data.indexPath)")
    }
}

extension IndexAddCommand {
    /// The options this command reads.
    enum Option {
        static let clientState = OptionSpec.value("--client-state", "text", help: "Store this state (at most 250 bytes) with the batch, to resume from.")
        static let batch = OptionSpec.value("--batch", "name", help: "The batch name the client state is kept under (default \"default\").")
    }
}
