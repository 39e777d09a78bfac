import Dispatch
import Foundation
import HTTPServer
import SearchIndex
import StoreSeams
import Synchronization

/// Search responses reused across requests, as search engines keep a query-result cache:
/// the same few queries make up most of a search service's traffic.
///
/// The rules, which bound how stale an answer can be:
/// - The service's own writes (items, batches, deletions, activities) empty the cache at
///   once, so a client that pushes and then searches sees its push.
/// - Commits by another connection — a crawl in another process, engagement — show
///   within `refreshInterval` of the first search that notices them (SQLite's
///   `PRAGMA data_version`), like a search engine's refresh interval: until then the
///   previous answer is served while one search recomputes it in the background.
/// - An answer is recomputed after `lifetime` (freshness depends on the clock), again in
///   the background, and never served past the expiration date of one of its results.
/// - Requests that miss on a search already running wait for its answer rather than
///   repeat it.
/// - At most `capacityBytes` of answers and keys are kept (an answer larger than an
///   eighth of that is not kept at all); past that, arbitrary ones go.
final class SearchCache: Sendable {
    struct Key: Hashable, Sendable {
        var query: String
        var limit: Int
        var offset: Int
        var platform: AppTarget.Platform
        var installed: [String]
        var snippets: Bool
        var typing: Bool

        init(_ request: SearchRequest) {
            query = request.text
            limit = request.limit
            offset = request.offset
            platform = request.platform
            installed = request.installed.sorted()
            snippets = request.snippets
            typing = request.typing
        }

        var bytes: Int { query.utf8.count + installed.reduce(0) { $0 + $1.utf8.count + 16 } + 64 }
    }

    /// Hits (fresh or within the staleness bound), misses that searched, and searches run
    /// in the background to refresh a stale answer.
    struct Statistics: Sendable {
        var hits = 0
        var staleHits = 0
        var misses = 0
        var refreshes = 0
        /// Bytes the cached answers and their keys take.
        var bytes = 0
    }

    private struct Entry {
        var response: HTTPServerResponse
        /// What the entry and its key take, as counted against the capacity.
        var bytes: Int
        var version: Int
        var generation: Int
        var storedAt: Date
        /// The earliest expiration among the results: never served from then on.
        var expiresAt: Date
    }

    /// One search being computed; requests for the same key, index version and
    /// generation wait for it instead of running the same search.
    private final class Flight: Sendable {
        let version: Int
        let generation: Int
        let done = DispatchGroup()
        let response = Mutex<HTTPServerResponse?>(nil)

        init(version: Int, generation: Int) {
            self.version = version
            self.generation = generation
            done.enter()
        }
    }

    private enum Lookup {
        case hit(HTTPServerResponse, refresh: Flight?)
        case wait(Flight)
        case lead(Flight)
    }

    private struct State {
        var version = Int.min
        /// Bumped by the service's own writes.
        var generation = 0
        /// Data versions first seen within the refresh interval, oldest first, and the
        /// newest version seen before them.
        var recentVersions: [(version: Int, seenAt: Date)] = []
        var settledVersion = Int.min
        var entries: [Key: Entry] = [:]
        var bytes = 0
        var flights: [Key: Flight] = [:]
        var backgroundSearches = 0
        var statistics = Statistics()

        mutating func observe(_ version: Int, at now: Date, refreshInterval: TimeInterval) {
            if version > self.version {
                self.version = version
                recentVersions.append((version, now))
            }
            while let first = recentVersions.first, now.timeIntervalSince(first.seenAt) >= refreshInterval {
                settledVersion = first.version
                recentVersions.removeFirst()
            }
        }

        /// Whether an answer computed at `version` misses no commit older than the
        /// refresh interval: every version after it was first seen within the interval.
        func isWithinRefreshInterval(_ version: Int) -> Bool {
            version >= settledVersion
        }
    }

    let lifetime: TimeInterval
    let refreshInterval: TimeInterval
    let capacityBytes: Int
    let maximumBackgroundSearches: Int
    /// The connection whose data version is watched; only this cache uses it.
    private let probe: SearchIndex
    /// Computes an answer and the date it must not be served past.
    private let answer: @Sendable (SearchRequest) throws -> (response: HTTPServerResponse, expiresAt: Date)
    private let clock: @Sendable () -> Date
    private let state = Mutex(State())
    private let background = DispatchQueue(label: "searchlight.search-cache.refresh", attributes: .concurrent)

    init(indexPath: String, lifetime: TimeInterval, refreshInterval: TimeInterval, capacityBytes: Int = 64 << 20,
         clock: @escaping @Sendable () -> Date,
         answer: @escaping @Sendable (SearchRequest) throws -> (response: HTTPServerResponse, expiresAt: Date))
        throws(SearchIndexError)
    {
        self.lifetime = lifetime
        self.refreshInterval = refreshInterval
        self.capacityBytes = capacityBytes
        maximumBackgroundSearches = max(1, ProcessInfo.processInfo.activeProcessorCount)
        self.clock = clock
        self.answer = answer
        probe = try SearchIndex(path: indexPath, mode: .existing)
    }

    var statistics: Statistics {
        state.withLock { state in
            var statistics = state.statistics
            statistics.bytes = state.bytes
            return statistics
        }
    }

    /// Forgets every answer: the service has just written to the index.
    func invalidate() {
        state.withLock { state in
            state.generation += 1
            state.entries.removeAll(keepingCapacity: true)
            state.bytes = 0
        }
    }

    /// The answer to `request`, from the cache when the rules allow, else searched.
    func response(for request: SearchRequest) throws -> HTTPServerResponse {
        let key = Key(request)
        let now = request.now
        let version = try probe.dataVersion()
        let lookup: Lookup = state.withLock { state in
            state.observe(version, at: now, refreshInterval: refreshInterval)
            if let entry = state.entries[key], entry.generation == state.generation, now < entry.expiresAt {
                let age = now.timeIntervalSince(entry.storedAt)
                if entry.version == state.version, age < lifetime {
                    state.statistics.hits += 1
                    return .hit(entry.response, refresh: nil)
                }
                if state.isWithinRefreshInterval(entry.version), age < 2 * lifetime {
                    state.statistics.staleHits += 1
                    guard state.flights[key] == nil, state.backgroundSearches < maximumBackgroundSearches else {
                        return .hit(entry.response, refresh: nil)
                    }
                    let flight = Flight(version: state.version, generation: state.generation)
                    state.flights[key] = flight
                    state.backgroundSearches += 1
                    state.statistics.refreshes += 1
                    return .hit(entry.response, refresh: flight)
                }
            }
            if let flight = state.flights[key], flight.version == state.version, flight.generation == state.generation {
                state.statistics.hits += 1
                return .wait(flight)
            }
            let flight = Flight(version: state.version, generation: state.generation)
            state.flights[key] = flight
            state.statistics.misses += 1
            return .lead(flight)
        }
        switch lookup {
        case .hit(let response, let refresh):
            if let refresh {
                background.async { [self] in
                    var fresh = request
                    fresh.now = clock()
                    _ = try? run(fresh, key: key, flight: refresh)
                    state.withLock { $0.backgroundSearches -= 1 }
                }
            }
            return response
        case .wait(let flight):
            flight.done.wait()
            if let response = flight.response.withLock({ $0 }) { return response }
            return try answer(request).response
        case .lead(let flight):
            return try run(request, key: key, flight: flight)
        }
    }

    /// Searches for `flight`, stores the answer under `key` and hands it to the waiters.
    private func run(_ request: SearchRequest, key: Key, flight: Flight) throws -> HTTPServerResponse {
        defer {
            state.withLock { state in
                if state.flights[key] === flight { state.flights[key] = nil }
            }
            flight.done.leave()
        }
        let (response, expiresAt) = try answer(request)
        flight.response.withLock { $0 = response }
        state.withLock { state in
            guard flight.generation == state.generation else { return }
            if let existing = state.entries[key], existing.version > flight.version { return }
            let bytes = key.bytes + response.bodyBytes
            guard bytes <= capacityBytes / 8 else { return }
            if let replaced = state.entries.removeValue(forKey: key) { state.bytes -= replaced.bytes }
            while state.bytes + bytes > capacityBytes, let victim = state.entries.first {
                state.entries.remove(at: state.entries.startIndex)
                state.bytes -= victim.value.bytes
            }
            state.entries[key] = Entry(response: response, bytes: bytes, version: flight.version, generation: flight.generation,
                                       storedAt: request.now, expiresAt: expiresAt)
            state.bytes += bytes
        }
        return response
    }
}

extension HTTPServerResponse {
    /// The size of a body given whole; streamed bodies are not cached.
    var bodyBytes: Int {
        if case .bytes(let bytes) = body { return bytes.count }
        return Int.max / 2
    }
}
