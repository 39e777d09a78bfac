/// `searchlight index add|delete`: the push model from the command line.
struct IndexCommand: CommandGroup {
    static let spec = CommandSpec(
        name: "index",
        abstract: "Add items to the index or delete them, as an app pushes them.",
        subcommands: [IndexAddCommand.self, IndexDeleteCommand.self],
        examples: ["searchlight index add items.json", "searchlight index delete --domain com.example.people"])
}
