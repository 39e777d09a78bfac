import BoundedCache
import Foundation
import HTTPServer
import Items
import SearchIndex
import ServiceAPI

extension SearchCache {
    /// A cached answer.
    struct Entry {
        var response: HTTPServerResponse
        /// The change log's sequence number through which the answer is known current.
        var version: Int64
        var storedAt: Date
        /// The earliest expiration among the results: never served from then on.
        var expiresAt: Date
        var dependencies: AnswerDependencies
    }

    /// What the cache holds and knows, changed only under its lock: the answers, the
    /// eviction order, the changes applied and the searches running. Memory: the answers
    /// within the capacity (a ``BoundedStore``: second-chance eviction, no answer served
    /// past twice the lifetime); the last ``recentChangesKept`` changes (each at most a
    /// 32 KiB filter and 4,096 rows).
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
        var entries: BoundedStore<Key, Entry>
        var flights: [Key: Flight] = [:]
        var backgroundSearches = 0
        var statistics = Statistics()

        static let recentChangesKept = 64

        init(capacityBytes: Int, lifetime: TimeInterval) {
            entries = BoundedStore(capacityBytes: capacityBytes, maximumAge: 2 * lifetime)
        }

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
                let before = version
                entries.removeAll { $1.version < before }
            }
            let (from, latest) = (version, read.changes.last?.sequence ?? version)
            var touched: [Key] = []
            var answersKept = 0
            // Answers already behind need no test: they are being recomputed.
            entries.updateAll { key, entry in
                guard entry.version == from else { return }
                let through = kept[key] ?? Self.keptThrough(entry.dependencies, read.changes, from: from)
                entry.version = through
                if through == latest { answersKept += 1 } else { touched.append(key) }
            }
            statistics.answersKept += answersKept
            statistics.answersTouched += touched.count
            if dropping { for key in touched { entries.remove(key) } }
            for change in read.changes {
                recentVersions.append((change.sequence, now))
                recentChanges.append(change)
            }
            version = latest
            if recentChanges.count > Self.recentChangesKept { recentChanges.removeFirst(recentChanges.count - Self.recentChangesKept) }
        }

        mutating func removeAll() {
            entries.removeAll()
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
