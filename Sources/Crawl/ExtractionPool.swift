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

    /// One analysis per core, since parsing a page is CPU work; more threads only share the
    /// cores (and push the coordinator's commits off them). A render holds its thread while
    /// the browser works, so each render that may run at once adds one.
    static func width(cores: Int, renders: Int) -> Int { max(1, cores) + max(0, renders) }

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

    /// The oldest work waiting. Its slot lets go of it at once (a page's body must not stay
    /// referenced once analysed), and taken slots are dropped every so often, so the list
    /// holds no more than what waits plus ``compactionInterval``.
    private func take() -> Work? {
        state.withLock { state -> Work? in
            guard state.next < state.pending.count else {
                state.pending.removeAll(keepingCapacity: true)
                state.next = 0
                state.running -= 1
                return nil
            }
            let work = state.pending[state.next]
            state.pending[state.next] = {}
            state.next += 1
            if state.next >= Self.compactionInterval {
                state.pending.removeFirst(state.next)
                state.next = 0
            }
            return work
        }
    }

    static let compactionInterval = 256
}
