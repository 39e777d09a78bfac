import Dispatch
import StoreSeams
import Synchronization

/// Runs page analysis on at most `width` threads without ever blocking the thread that
/// submits: libcurl's callback thread hands a page over and goes back to its transfers.
/// Work waits in a list that the engine bounds: a page counts as in flight until its event
/// is handled, so at most `--concurrency` pages wait here.
final class ExtractionPool: Sendable {
    typealias Work = @Sendable () -> Void

    private struct State: ~Copyable {
        var pending: [Work] = []
        var next = 0
        var running = 0
    }

    private let queue = DispatchQueue(label: "searchlight.extract", attributes: .concurrent)
    private let state = Mutex(State())
    private let width: Int

    init(width: Int) {
        self.width = max(1, width)
    }

    func submit(_ work: @escaping Work) {
        let startsWorker = state.withLock { state -> Bool in
            state.pending.append(work)
            guard state.running < width else { return false }
            state.running += 1
            return true
        }
        if startsWorker { queue.async { self.drain() } }
    }

    /// A worker: runs what is pending until nothing is, then ends.
    private func drain() {
        while let work = take() { work() }
    }

    private func take() -> Work? {
        state.withLock { state -> Work? in
            guard state.next < state.pending.count else {
                state.pending.removeAll(keepingCapacity: true)
                state.next = 0
                state.running -= 1
                return nil
            }
            defer { state.next += 1 }
            return state.pending[state.next]
        }
    }
}
