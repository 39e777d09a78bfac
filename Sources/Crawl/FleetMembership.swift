import Foundation

/// When a worker of a shared store looks for hosts the others let go, and whether, idle,
/// it may end its run: a value whose decisions are functions of the time and of what the
/// engine read from the store, as ``HostMachine``'s are.
///
/// Another worker's hosts come to this one when its lease runs out, so an idle worker waits
/// while others hold hosts with work, and ends only when none is left to take over.
struct FleetMembership {
    /// How often the store is asked: each question reads the shared frontier.
    static let lookInterval: TimeInterval = 1

    enum Action: Equatable {
        /// Nothing to ask the store now.
        case wait
        /// Take up hosts no worker holds any more (released, or left by a killed worker).
        case look
        /// Idle: look, then ask whether any work is left in the fleet.
        case askWhetherDone
    }

    private var lastLook: Date
    private var lastIdleCheck = Date.distantPast

    init(started: Date) {
        lastLook = started
    }

    /// - Parameter idle: nothing in flight and nothing due on this worker's hosts.
    mutating func decide(now: Date, idle: Bool) -> Action {
        if idle {
            guard now.timeIntervalSince(lastIdleCheck) >= Self.lookInterval else { return .wait }
            lastIdleCheck = now
            lastLook = now
            return .askWhetherDone
        }
        guard now.timeIntervalSince(lastLook) >= Self.lookInterval else { return .wait }
        lastLook = now
        return .look
    }

    /// Whether an idle worker may end: no other worker holds hosts with work, and no host
    /// with work is free for it to take — asked after looking, since another worker may have
    /// taken hosts meanwhile, and a worker killed a moment ago still counts in the shares
    /// until its lease runs out.
    static func mayEnd(heldElsewhere: Int, freeWithWork: Int) -> Bool {
        heldElsewhere == 0 && freeWithWork == 0
    }
}
