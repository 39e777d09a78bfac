/// Where a run is, for a progress line: the phase, how far into it, and what was written.
public struct IngestProgress: Sendable, Equatable {
    public enum Phase: String, Sendable {
        /// Reading every tracked table's row versions to find what changed.
        case scanning = "finding changes"
        /// Rendering the affected records and sending their items in batches.
        case rendering
    }

    public var phase: Phase
    /// Rows read (scanning) or records decided (rendering) so far in this phase.
    public var done: Int
    /// The phase's rows or records in all, when known.
    public var total: Int?
    /// Items decided new, changed or gone so far (sent in batches as the run goes).
    public var written: Int
    /// Seconds since the run and since the phase began.
    public var seconds: Double
    public var phaseSeconds: Double

    /// Rows or records a second in this phase.
    public var rate: Double { phaseSeconds > 0 ? Double(done) / phaseSeconds : 0 }

    /// Seconds the phase still needs at its rate so far, when its total is known.
    public var secondsLeft: Double? {
        guard let total, rate > 0, done > 0 else { return nil }
        return Double(max(0, total - done)) / rate
    }
}
