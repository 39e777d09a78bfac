import Service
import TextUtilities

/// `searchlight keys create --owner NAME --domain D [--data DIR]`
struct KeysCreateCommand: Command {
    static let spec = CommandSpec(
        name: "create",
        abstract: "Create an API key and print it once; only its hash is stored.",
        discussion: """
            A key for the DNS domain D may write items whose webURL host is D or under it, or,
            without a webURL, whose domainIdentifier is D reversed (com.example for example.com) or
            under it. Items it writes belong to NAME: only NAME's keys can replace or delete them.
            """,
        options: [
            DataDirectory.option,
            StoreOption.option,
            Option.owner,
            Option.domain,
        ],
        examples: ["searchlight keys create --owner recipes-app --domain recipes.example"])

    var data: DataDirectory
    var store: StoreOption
    var owner: String
    var domain: String

    init(arguments: ParsedArguments) throws(UsageError) {
        data = DataDirectory(arguments)
        store = try StoreOption(arguments)
        guard let owner = arguments.value(Option.owner) else {
            throw UsageError("--owner NAME is required: 1 to 64 letters, digits, '-', '_' or '.'")
        }
        guard Ownership.isValidOwner(owner) else {
            throw UsageError("--owner '\(TerminalText.escaped(String(owner.prefix(80))))' is not an owner name: 1 to 64 letters, digits, '-', '_' or '.'")
        }
        guard let domain = arguments.value(Option.domain), Ownership.isValidDomain(domain) else {
            throw UsageError("--domain needs a DNS domain such as example.com")
        }
        self.owner = owner
        self.domain = domain.lowercased()
    }

    func run() throws {
        try data.create()
        let (key, secret) = try store.keys(data).createKey(owner: owner, domain: domain)
        Console.writeLine(secret)
        Console.error("Created key \(key.id) for \(owner) on \(domain). It is shown only this once: store it now.")
    }
}

extension KeysCreateCommand {
    /// The options this command reads.
    enum Option {
        static let owner = OptionSpec.value("--owner", "name", help: "Who the key is for; the owner of what it writes.", required: true)
        static let domain = OptionSpec.value("--domain", "domain", help: "The DNS domain the key may write for.", required: true)
    }
}
