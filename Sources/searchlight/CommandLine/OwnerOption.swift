import Items
import SearchIndex
import Service

/// `--owner NAME`: whose items a command acts on — an API key's owner, as `keys create
/// --owner` named it. Without it, the operator's: the items the crawler and the command line
/// write. Items are (owner, identifier): a tenant's `tart` is not the operator's.
struct OwnerOption {
    static let option = OptionSpec.value("--owner", "name", help: "Act on the items of this key owner (default: the operator's own).")

    let name: String?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        name = arguments.value(Self.option)
        if let name, !Ownership.isValidOwner(name) {
            throw UsageError("--owner needs an owner name: 1 to 64 letters, digits, '-', '_' or '.'")
        }
    }

    /// The key of the item with `identifier` of this owner.
    func key(_ identifier: String) -> ItemKey { ItemKey(owner: name, identifier: identifier) }
}
