import CSQLite

/// FTS5's extension API on one connection: finding and registering tokenizers.
/// <https://www.sqlite.org/fts5.html#extending_fts5>
public struct FTS5API {
    public let raw: UnsafeMutablePointer<fts5_api>

    /// Asks the connection for its `fts5_api` with `SELECT fts5(?)` and a bound pointer.
    public init(_ connection: SQLiteConnection) throws(SQLiteError) {
        var api: UnsafeMutablePointer<fts5_api>?
        let statement = try connection.prepare("SELECT fts5(?)")
        // > The type string must be exactly "fts5_api_ptr"; it is compared when the
        // > statement runs, so it must outlive the bind call: a static string does.
        let type: StaticString = "fts5_api_ptr"
        withUnsafeMutablePointer(to: &api) { pointer in
            _ = type.utf8Start.withMemoryRebound(to: CChar.self, capacity: type.utf8CodeUnitCount + 1) { typeName in
                sqlite3_bind_pointer(statement.handle, 1, pointer, typeName, nil)
            }
        }
        try statement.step()
        guard let api else { throw SQLiteError(code: SQLITE_ERROR, message: "this SQLite has no FTS5") }
        self.raw = api
    }

    /// A registered tokenizer's implementation and its registration context.
    public func findTokenizer(_ name: String) -> (context: UnsafeMutableRawPointer?, tokenizer: fts5_tokenizer)? {
        var context: UnsafeMutableRawPointer?
        var tokenizer = fts5_tokenizer()
        guard raw.pointee.xFindTokenizer(raw, name, &context, &tokenizer) == SQLITE_OK else { return nil }
        return (context, tokenizer)
    }

    /// Registers a tokenizer. `context` is handed to `xCreate` and released by `destroy`
    /// when the connection closes; SQLite copies `tokenizer`.
    public func createTokenizer(
        _ name: String, context: UnsafeMutableRawPointer, tokenizer: fts5_tokenizer,
        destroy: @convention(c) (UnsafeMutableRawPointer?) -> Void
    ) throws(SQLiteError) {
        var tokenizer = tokenizer
        let code = raw.pointee.xCreateTokenizer(raw, name, context, &tokenizer, destroy)
        // > If registration fails, xDestroy is not called: release the context here.
        guard code == SQLITE_OK else {
            destroy(context)
            throw SQLiteError(code: code, message: "registering FTS5 tokenizer '\(name)' failed")
        }
    }
}
