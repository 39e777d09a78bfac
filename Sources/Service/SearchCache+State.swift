import Foundation
import HTTPServer
import Items
import SearchIndex
import ServiceAPI

extension SearchCache {
    /// A cached answer.
    struct Entry {
        var response: HTTPServerResponse
        /// What the entry and its key take, as counted against the capacity.
        var bytes: Int
        /// The change log's sequence number through which the answer is known current.
        var version: Int64
        var storedAt: Date
        /// The earliest expiration among the results: never served from then on.
        var expiresAt: Date
        var dependencies: AnswerDependencies
        /// Its place in the eviction order, and whether it was asked for since it was put there.
        var stamp: Int
        var referenced = false
    }

    /// What the cache holds and knows, changed only under its lock: the answers, the
    /// eviction order, the changes applied and the searches running. Memory: the answers
    /// within the capacity; the eviction order at most twice their count plus 1,024 pairs;
    /// the last ``recentChangesKept`` changes (each at most a 32 KiB filter and 4,096 rows).
    struct State {
        /// The newest change applied to the entries.
        var version: Int64 = 0
        /// Bumped by the service's own writes: searches begun before one are not stored.
        var generation = 0
        /// Changes applied within the refresh interval, oldest first, and the newest one
        /// applied before them.
        var recentVersions: [(version: Int64, seenAt: Date)] = []
        var settledVersion = Int64.min
        /// The newest changes applied, for answers computed while they came in.
        var recentChanges: [IndexChange] = []
        var entries: [Key: Entry] = [:]
        var bytes = 0
        /// Keys in the order they were stored (or given their second chance) from
        /// `orderStart` on; a pair whose stamp is no longer its entry's is skipped.
        var order: [(key: Key, stamp: Int)] = []
        var orderStart = 0
        var nextStamp = 0
        var flights: [Key: Flight] = [:]
        var backgroundSearches = 0
        var statistics = Statistics()

        static let recentChangesKept = 64

        mutating func settle(at now: Date, refreshInterval: TimeInterval) {
            while let first = recentVersions.first, now.timeIntervalSince(first.seenAt) >= refreshInterval {
                settledVersion = first.version
                recentVersions.removeFirst()
            }
        }

        /// When the first change after `version` was applied: when an answer current through
        /// `version` was touched, if that was within the refresh interval.
        func touchedAt(_ version: Int64) -> Date? {
            recentVersions.first { $0.version > version }?.seenAt
        }

        /// Whether an answer current through `version` misses no change older than the
        /// refresh interval: every change after it was applied within the interval.
        func isWithinRefreshInterval(_ version: Int64) -> Bool {
            version >= settledVersion
        }

        /// Applies changes read from the log after ``version``: each current answer stays
        /// current through the changes it survives (`kept`, tested outside the lock, else
        /// tested here); a touched one is left behind (served stale within the refresh
        /// interval) or, for the service's own writes, dropped.
        mutating func apply(_ read: IndexChanges, kept: [Key: Int64], at now: Date, dropping: Bool) {
            guard read.complete else {
                // Changes were missed (a trimmed log, a new file): nothing cached is known good.
                generation += 1
                removeAll()
                recentChanges = []
                recentVersions = []
                settledVersion = .min
                version = read.latest
                return
            }
            if dropping {
                // A search may have read the service's own write from the log before the
                // write returned: an answer left behind may be behind that write.
                drop(entries.filter { $0.value.version < version }.map(\.key))
            }
            let latest = read.changes.last?.sequence ?? version
            var touched: [Key] = []
            // Answers already behind need no test: they are being recomputed.
            for index in entries.indices where entries.values[index].version == version {
                let through = kept[entries.keys[index]] ?? Self.keptThrough(entries.values[index].dependencies, read.changes, from: version)
                entries.values[index].version = through
                if through == latest {
                    statistics.answersKept += 1
                } else {
                    statistics.answersTouched += 1
                    touched.append(entries.keys[index])
                }
            }
            if dropping { drop(touched) }
            for change in read.changes {
                recentVersions.append((change.sequence, now))
                recentChanges.append(change)
            }
            version = latest
            if recentChanges.count > Self.recentChangesKept { recentChanges.removeFirst(recentChanges.count - Self.recentChangesKept) }
        }

        private mutating func drop(_ keys: [Key]) {
            for key in keys { bytes -= entries.removeValue(forKey: key)?.bytes ?? 0 }
        }

        /// Stores an entry at the end of the eviction order, evicting until it fits.
        mutating func store(_ entry: Entry, for key: Key, capacity: Int) {
            if let replaced = entries.removeValue(forKey: key) { bytes -= replaced.bytes }
            while bytes + entry.bytes > capacity, evictOne() {}
            var entry = entry
            entry.stamp = nextStamp
            order.append((key, nextStamp))
            nextStamp += 1
            entries[key] = entry
            bytes += entry.bytes
            if order.count - orderStart > 2 * entries.count + 1024 {
                order = order[orderStart...].filter { entries[$0.key]?.stamp == $0.stamp }
                orderStart = 0
            }
        }

        /// Evicts the oldest entry not asked for since it was stored or last spared; an entry
        /// asked for is spared once and goes to the end.
        private mutating func evictOne() -> Bool {
            while orderStart < order.count {
                let (key, stamp) = order[orderStart]
                orderStart += 1
                guard var entry = entries[key], entry.stamp == stamp else { continue }
                if entry.referenced {
                    entry.referenced = false
                    entry.stamp = nextStamp
                    order.append((key, nextStamp))
                    nextStamp += 1
                    entries[key] = entry
                    continue
                }
                entries[key] = nil
                bytes -= entry.bytes
                return true
            }
            return false
        }

        mutating func removeAll() {
            entries.removeAll(keepingCapacity: true)
            bytes = 0
            order = []
            orderStart = 0
        }

        /// The newest change an answer current through `version` stays current through:
        /// the changes after it, in order, up to the first that touches it.
        static func keptThrough(_ dependencies: AnswerDependencies, _ changes: [IndexChange], from version: Int64) -> Int64 {
            var current = version
            for change in changes where change.sequence > current {
                guard change.sequence == current + 1, !change.affects(dependencies) else { break }
                current = change.sequence
            }
            return current
        }
    }
}
