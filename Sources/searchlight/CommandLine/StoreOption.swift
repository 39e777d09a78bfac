import Items
import PostgresStore
import SearchIndex
import Service
import StoreSeams

/// `--store postgres://USER@HOST:PORT/DB` (or `SEARCHLIGHT_STORE`): the shared PostgreSQL
/// store of multi-machine mode. Without it every command works on the data folder alone.
struct StoreOption {
    static let option = OptionSpec.value(
        "--store", "url", help: "A shared PostgreSQL store (postgres://user@host:port/db) instead of the data folder alone.\n"
            + "Default: $SEARCHLIGHT_STORE when it is set.")

    let url: String?

    /// The data folder alone.
    static let none = StoreOption(url: nil)

    private init(url: String?) {
        self.url = url
    }

    init(_ arguments: ParsedArguments) throws(UsageError) {
        url = arguments.value(Self.option) ?? SharedStore.environmentURL
        if let url, !(url.hasPrefix("postgres://") || url.hasPrefix("postgresql://")) {
            throw UsageError("--store needs a postgres:// URL such as postgres://searchlight@db.internal:5432/searchlight, not '\(url.prefix(60))'")
        }
    }

    /// The shared store, connected and migrated; nil without `--store`.
    func open() throws -> SharedStore? {
        guard let url else { return nil }
        do {
            return try SharedStore(url: url)
        } catch {
            throw CommandFailure("cannot use the store \(url): \(error)")
        }
    }

    /// Where keys and activity reports live.
    func keys(_ data: DataDirectory) throws -> KeyStore {
        if let shared = try open() { return PostgresKeyStore(shared) }
        try data.create()
        return try ServiceStore(path: data.servicePath, legacyIndexPath: data.indexPath)
    }

    /// Where items are written.
    func items(_ data: DataDirectory) throws -> ItemStore {
        if let shared = try open() { return PostgresItemStore(shared) }
        try data.create()
        return try SearchIndex(path: data.indexPath)
    }
}
