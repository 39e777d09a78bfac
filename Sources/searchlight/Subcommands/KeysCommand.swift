/// `searchlight keys create|list|revoke`: API keys for writing to `searchlight serve`.
struct KeysCommand: CommandGroup {
    static let spec = CommandSpec(
        name: "keys",
        abstract: "Create, list and revoke the API keys that may write to the service.",
        subcommands: [KeysCreateCommand.self, KeysListCommand.self, KeysRevokeCommand.self],
        examples: ["searchlight keys create --owner recipes-app --domain recipes.example", "searchlight keys list"])
}
