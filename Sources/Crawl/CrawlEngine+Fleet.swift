import Foundation
import StoreSeams

/// A worker of a shared store among the others: taking up hosts they let go, giving back
/// hosts over its share, and ending only when the fleet has no work left for it
/// (``FleetMembership`` decides when to ask).
extension CrawlEngine {
    /// Takes up hosts with work that no worker holds any more: released at the end of
    /// another's run, or left by a killed worker whose lease ran out.
    func lookForFreedHosts(now: Date) throws {
        var surplus = try store.hostsOverShare(now: now)
        for origin in hosts.order where surplus > 0 && hosts[origin]?.inFlight == 0 {
            try handOver(origin, now: now)
            surplus -= 1
        }
        for origin in try store.originsWithWork(now: now) where hosts[origin]?.hasPagesLeft != true {
            hosts.reconsider(origin)
            try activate(origin)
        }
    }

    /// Gives a host with nothing in flight back to the fleet: its unsent claims return to
    /// the queue and its next allowed time is written first, so whoever takes it keeps the spacing.
    func handOver(_ origin: String, now: Date) throws {
        guard var host = hosts[origin] else { return }
        try store.release(host.takeBuffer().map(\.id))
        hosts[origin] = host
        try flush(now: now)
        hosts[origin] = nil
        duplicates.stop(origin)
        try store.releaseHost(origin)
    }

    /// Whether an idle worker may end its run, after looking once more for freed hosts.
    func fleetIsDone(now: Date) throws -> Bool {
        try lookForFreedHosts(now: now)
        guard !hosts.hasWork(now: now) else { return false }
        let free = try store.originsWithWork(now: now).filter { hosts[$0] == nil }.count
        return FleetMembership.mayEnd(heldElsewhere: try store.originsHeldElsewhere(now: now), freeWithWork: free)
    }
}
