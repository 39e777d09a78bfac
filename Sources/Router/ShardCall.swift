/// One shard's part of a routed request, as a state machine whose events return what to do
/// next: ask the first replica; when an attempt fails (no connection, a 5xx, a node behind
/// its store), ask the next at once; when none has answered after the hedging delay, ask a
/// second one as well and take whichever answers first (Dean & Barroso, "The Tail at
/// Scale"); when every replica has failed, the shard is missing from the answer.
struct ShardCall: Sendable {
    enum Action: Sendable, Equatable {
        /// Send the request to this replica (its index in the shard's list).
        case send(Int)
        /// Nothing to do until another attempt ends or the hedge is due.
        case wait
        /// The shard has its answer: stop waiting for it.
        case answered
        /// Every replica failed.
        case failed
    }

    let replicas: Int
    private(set) var nextReplica = 0
    private(set) var inFlight = 0
    private(set) var isFinished = false
    private(set) var hedged = false

    init(replicas: Int) {
        self.replicas = replicas
    }

    mutating func begin() -> Action {
        sendNext() ?? finish(.failed)
    }

    /// An attempt answered for good (200, or a 400 that every replica would give).
    mutating func attemptAnswered() -> Action {
        inFlight -= 1
        return isFinished ? .wait : finish(.answered)
    }

    mutating func attemptFailed() -> Action {
        inFlight -= 1
        guard !isFinished else { return .wait }
        if let send = sendNext() { return send }
        return inFlight == 0 ? finish(.failed) : .wait
    }

    /// An attempt's answer can be had from no replica (it is past a byte limit): the shard
    /// is missing, whatever other attempt is still out.
    mutating func giveUp() -> Action {
        inFlight -= 1
        return isFinished ? .wait : finish(.failed)
    }

    /// The hedging delay has passed since the first attempt.
    mutating func hedgeDue() -> Action {
        guard !isFinished, !hedged else { return .wait }
        hedged = true
        return sendNext() ?? .wait
    }

    private mutating func sendNext() -> Action? {
        guard nextReplica < replicas else { return nil }
        defer { nextReplica += 1 }
        inFlight += 1
        return .send(nextReplica)
    }

    private mutating func finish(_ action: Action) -> Action {
        isFinished = true
        return action
    }
}
