import Dispatch
import Fetch
import HTTPTypes
import Synchronization

/// Sends one request to a replica of every shard at once and waits for all of them, each
/// shard's attempts run by its ``ShardCall``: fail-over to the next replica, a hedge after
/// `hedgeAfter` seconds, and no more than `timeout` seconds in all (a shard that has not
/// answered by then is missing). Replicas are tried in an order that turns with each
/// request, so load spreads over them.
final class FanOut: Sendable {
    /// A shard's answer: its status and body (200, or a 400 every replica would give).
    struct Answer: Sendable {
        var status: Int
        var body: [UInt8]
    }

    private let client: HTTPClient
    private let headers: [HTTPField]
    /// Headers made for each request from its path and body (the router credential).
    private let sign: @Sendable (_ path: String, _ body: [UInt8]) -> [HTTPField]
    private let turn = Atomic<Int>(0)
    let attempts = Atomic<Int>(0)
    let hedges = Atomic<Int>(0)
    let failovers = Atomic<Int>(0)

    init(client: HTTPClient, headers: [HTTPField], sign: @escaping @Sendable (_ path: String, _ body: [UInt8]) -> [HTTPField] = { _, _ in [] }) {
        self.client = client
        self.headers = headers
        self.sign = sign
    }

    /// `POST path` with `body` to every shard of `map`; nil for a shard no replica answered.
    func post(_ path: String, bodies: [[UInt8]], map: ShardMap, hedgeAfter: Double, timeout: Double) -> [Answer?] {
        let shards = map.count
        let start = turn.add(1, ordering: .relaxed).newValue
        // Each shard's replicas, turned by the request's number.
        let order: [[ShardMap.Replica]] = map.replicas.map { list in
            list.isEmpty ? [] : (0..<list.count).map { list[($0 + start) % list.count] }
        }
        struct State {
            var calls: [ShardCall]
            var answers: [Answer?]
            var open: Int
        }
        let state = Mutex(State(calls: order.map { ShardCall(replicas: $0.count) }, answers: Array(repeating: nil, count: shards), open: shards))
        let done = DispatchSemaphore(value: 0)
        let deadline = DispatchTime.now() + timeout

        @Sendable func act(_ shard: Int, _ action: ShardCall.Action) {
            switch action {
            case .wait, .answered: break
            case .failed:
                if state.withLock({ state -> Bool in state.open -= 1; return state.open == 0 }) { done.signal() }
            case .send(let replica):
                attempts.add(1, ordering: .relaxed)
                if replica == 0 {
                    DispatchQueue.global().asyncAfter(deadline: .now() + hedgeAfter) {
                        let next = state.withLock { $0.calls[shard].hedgeDue() }
                        if case .send = next { self.hedges.add(1, ordering: .relaxed) }
                        act(shard, next)
                    }
                }
                let body = bodies.count == 1 ? bodies[0] : bodies[shard]
                var request = FetchRequest(url: order[shard][replica].address + path, headers: headers + sign(path, body))
                request.method = "POST"
                request.body = body
                request.timeout = max(0.05, Double(Int64(deadline.uptimeNanoseconds) - Int64(DispatchTime.now().uptimeNanoseconds)) / 1e9)
                client.start(request) { response in
                    // 400 is the query's fault: every replica would say so. Anything else (403 from
                    // a node of another store, 404 from an older version, 503 behind) fails over.
                    let definitive = response.error == nil && (response.status == 200 || response.status == 400)
                    if definitive {
                        let (next, last) = state.withLock { state -> (ShardCall.Action, Bool) in
                            let next = state.calls[shard].attemptAnswered()
                            guard next == .answered else { return (next, false) }
                            state.answers[shard] = Answer(status: response.status, body: response.body)
                            state.open -= 1
                            return (next, state.open == 0)
                        }
                        act(shard, next)
                        if last { done.signal() }
                    } else {
                        let next = state.withLock { $0.calls[shard].attemptFailed() }
                        if case .send = next { self.failovers.add(1, ordering: .relaxed) }
                        act(shard, next)
                    }
                }
            }
        }
        guard shards > 0 else { return [] }
        for shard in 0..<shards { act(shard, state.withLock { $0.calls[shard].begin() }) }
        _ = done.wait(timeout: deadline)
        return state.withLock { $0.answers }
    }
}
