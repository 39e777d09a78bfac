import Dispatch
import Fetch
import HTTPTypes
import Synchronization

/// Sends one request to a replica of every shard at once and waits for all of them, each
/// shard's attempts run by its ``ShardCall``: fail-over to the next replica, a hedge after
/// `hedgeAfter` seconds, and no more than `timeout` seconds in all (a shard that has not
/// answered by then is missing). Replicas are tried in an order that turns with each
/// request, so load spreads over them.
///
/// Memory is bounded twice: each shard's answer may be an equal part of the call's byte
/// budget (a larger one is missing), and the bodies all calls hold at once share one budget
/// (``held``); each answer is read as soon as it arrives, off the client's thread, and its
/// body let go, so a call keeps what its reader keeps (a shard's best results), not bodies.
final class FanOut: Sendable {
    /// A shard's answer: its status and body (200, or a 400 every replica would give).
    struct Answer: Sendable {
        var status: Int
        var body: [UInt8]
    }

    private let client: HTTPClient
    private let headers: [HTTPField]
    /// Headers made for each request from its path and body (the router credential).
    private let sign: @Sendable (_ node: String, _ path: String, _ body: [UInt8]) -> [HTTPField]
    /// The answer bytes held at once by every call: taken as they arrive, given back when
    /// each body has been read or dropped.
    let held: ByteBudget
    private let turn = Atomic<Int>(0)
    let attempts = Atomic<Int>(0)
    let hedges = Atomic<Int>(0)
    let failovers = Atomic<Int>(0)

    init(client: HTTPClient, headers: [HTTPField], heldBytes: Int, sign: @escaping @Sendable (_ node: String, _ path: String, _ body: [UInt8]) -> [HTTPField] = { _, _, _ in [] }) {
        self.client = client
        self.headers = headers
        self.held = ByteBudget(heldBytes)
        self.sign = sign
    }

    /// `POST path` with `body` to every shard of `map`, each answer read by `read` (its shard,
    /// its answer) as it arrives; nil for a shard no replica answered within the time and its
    /// part of `budget` bytes, or whose answer `read` refused.
    func post<Value: Sendable>(
        _ path: String, bodies: [[UInt8]], map: ShardMap, hedgeAfter: Double, timeout: Double, budget: Int,
        read: @escaping @Sendable (Int, Answer) -> Value?
    ) -> [Value?] {
        let shards = map.count
        let start = turn.add(1, ordering: .relaxed).newValue
        // Each shard's replicas, turned by the request's number.
        let order: [[ShardMap.Replica]] = map.replicas.map { list in
            list.isEmpty ? [] : (0..<list.count).map { list[($0 + start) % list.count] }
        }
        let state = Mutex(CallState<Value>(calls: order.map { ShardCall(replicas: $0.count) }, answers: Array(repeating: nil, count: shards), open: shards))
        let asked = max(1, map.replicas.count { !$0.isEmpty })
        let answerBytes = budget / asked
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
                var request = FetchRequest(url: order[shard][replica].address + path, headers: headers + sign(order[shard][replica].address, path, body))
                request.method = "POST"
                request.body = body
                request.budgets = [held]
                request.maximumBodyBytes = min(answerBytes, client.configuration.maximumBodyBytes)
                request.timeout = max(0.05, Double(Int64(deadline.uptimeNanoseconds) - Int64(DispatchTime.now().uptimeNanoseconds)) / 1e9)
                client.start(request) { response in
                    // 400 is the query's fault: every replica would say so. Anything else (403 from
                    // a node of another store, 404 from an older version, 503 behind) fails over,
                    // but an answer past a byte limit would be as large from every replica.
                    let definitive = response.error == nil && (response.status == 200 || response.status == 400)
                    guard definitive else {
                        self.held.give(response.body.count)
                        let next = state.withLock { state in
                            response.error?.kind == .tooLarge ? state.calls[shard].giveUp() : state.calls[shard].attemptFailed()
                        }
                        if case .send = next { self.failovers.add(1, ordering: .relaxed) }
                        act(shard, next)
                        return
                    }
                    let next = state.withLock { $0.calls[shard].attemptAnswered() }
                    guard next == .answered else {
                        self.held.give(response.body.count)
                        return act(shard, next)
                    }
                    // Read off the client's thread, which every shard's transfers share.
                    DispatchQueue.global().async {
                        let value = read(shard, Answer(status: response.status, body: response.body))
                        self.held.give(response.body.count)
                        let last = state.withLock { state -> Bool in
                            state.answers[shard] = value
                            state.open -= 1
                            return state.open == 0
                        }
                        if last { done.signal() }
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

/// One ``FanOut/post`` call's shards: their calls, their answers as read, and how many are
/// still open.
private struct CallState<Value> {
    var calls: [ShardCall]
    var answers: [Value?]
    var open: Int
}
