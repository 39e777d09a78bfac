import ItemMapping
import FoundationEssentials
import JSON

/// What one ingest run did.
public struct IngestReport: Sendable {
    public var source: String
    /// True when every mapped record was rendered (first run, changed mapping, many changes).
    public var full = false
    public var created = 0
    public var updated = 0
    public var deleted = 0
    public var unchanged = 0
    public var skipped: [IngestSkip: Int] = [:]
    /// The first few skipped records with why (`Employee 12: contentDescription: …`).
    public var skipExamples: [String] = []
    /// Rows read to find changes, and rows whose version changed, appeared or went.
    public var scannedRows = 0
    public var changedRows = 0
    public var batches = 0
    public var seconds = 0.0
    /// Where the time went: `scan` (finding changes), `render` (items, batches; includes
    /// `wait`, the time spent waiting for the index to take a batch, `stage`, writing a
    /// batch down before it is sent, and `apply`, recording what the index took), `finish`
    /// (recording the rows' versions); and on the commit thread, `send` (the index taking
    /// batches).
    public var phases: [String: Double] = [:]
    /// Set when the index and the ingest state disagreed and every item was written again.
    public var resynchronised = false

    public var json: JSONValue {
        .object(JSONObject([
            ("source", .string(source)), ("full", .bool(full)), ("created", JSONValue(created)), ("updated", JSONValue(updated)),
            ("deleted", JSONValue(deleted)), ("unchanged", JSONValue(unchanged)),
            ("skipped", .object(JSONObject(IngestSkip.allCases.compactMap { reason in skipped[reason].map { (reason.rawValue, JSONValue($0)) } }))),
            ("skipExamples", .array(skipExamples.map(JSONValue.string))), ("scannedRows", JSONValue(scannedRows)),
            ("changedRows", JSONValue(changedRows)), ("batches", JSONValue(batches)), ("seconds", JSONValue((seconds * 1000).rounded() / 1000)),
            ("resynchronised", .bool(resynchronised)),
            ("phases", .object(JSONObject(phases.keys.sorted().map { ($0, JSONValue((phases[$0]! * 1000).rounded() / 1000)) }))),
        ]))
    }
}
