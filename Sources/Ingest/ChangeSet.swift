/// What changed in a source since the last run: per tracked table the rows whose version
/// changed, appeared or went (with their old versions), and per join table the pairs that
/// came and went. Built by ``Ingestor`` from one scan of each table.
struct ChangeSet {
    struct TableChanges {
        var changed: [RecordKey] = []
        var added: [RecordKey] = []
        var deleted: [RecordKey] = []
        /// Old versions (with their link columns) of changed and deleted rows.
        var old: [RecordKey: IngestState.Version] = [:]
        var rows = 0
        var touched: [RecordKey] { changed + added + deleted }
    }

    var tables: [String: TableChanges] = [:]
    /// Everything to write to the state when the run ends, the join tables' pairs that came
    /// and went among it.
    var outcome = IngestState.Outcome()
    var addedPairs: [String: [IngestState.Pair]] { outcome.addedPairs }
    var removedPairs: [String: [IngestState.Pair]] { outcome.removedPairs }

    var changedRows: Int {
        tables.values.reduce(0) { $0 + $1.touched.count } + addedPairs.values.reduce(0) { $0 + $1.count } + removedPairs.values.reduce(0) { $0 + $1.count }
    }

    var scannedRows: Int { tables.values.reduce(0) { $0 + $1.rows } }
}
