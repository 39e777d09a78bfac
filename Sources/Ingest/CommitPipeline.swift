import Dispatch

/// Sends one batch at a time on a thread of its own, so that the next batch is rendered
/// while the index commits the last one (the two take about as long; on two cores they
/// overlap). At most one batch is in flight: ``IngestState`` stages one at a time.
final class CommitPipeline: @unchecked Sendable {
    // Unchecked: `failure` is written on `queue` before `group.leave()` and read only after
    // `group.wait()`; `inFlight` is touched by the owner's thread only.
    private let queue = DispatchQueue(label: "searchlight.ingest.commit")
    private let group = DispatchGroup()
    private var failure: (any Error)?
    private var inFlight = false

    /// Starts `work`; the previous batch must have been settled with ``wait()``.
    func send(_ work: @escaping @Sendable () throws -> Void) {
        precondition(!inFlight, "one batch in flight at a time")
        inFlight = true
        group.enter()
        queue.async {
            do { try work() } catch { self.failure = error }
            self.group.leave()
        }
    }

    /// Waits for the batch in flight and rethrows its error; false when none was in flight.
    func wait() throws -> Bool {
        guard inFlight else { return false }
        group.wait()
        inFlight = false
        if let failure {
            self.failure = nil
            throw failure
        }
        return true
    }
}
