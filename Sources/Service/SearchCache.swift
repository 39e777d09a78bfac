import Dispatch
import Foundation
import HTTPServer
import Items
import SearchIndex
import ServiceAPI
import StoreSeams
import Synchronization

/// Search responses reused across requests, as search engines keep a query-result cache:
/// the same few queries make up most of a search service's traffic.
///
/// Each answer keeps what it was computed from (``AnswerDependencies``: its candidates, the
/// terms it read, the word being typed), and each commit to the index says what it changed
/// (the index's change log, ``IndexChange``): a commit touches only the answers it could
/// change, so a crawl committing every second leaves the others fresh.
///
/// The rules, which bound how stale an answer can be:
/// - The service's own writes (items, batches, deletions, activities) drop the answers they
///   touch at once, so a client that pushes and then searches sees its push.
/// - Commits by another connection — a crawl in another process, engagement — are read
///   from the change log by the first search that notices them (SQLite's
///   `PRAGMA data_version`). An answer they touch is served for at most `refreshInterval`
///   more, like a search engine's refresh interval; once it has been stale for half of
///   that, one search recomputes it in the background (so a crawl committing every second
///   costs an answer one refresh every few seconds, not one a commit).
/// - An answer is recomputed after `lifetime` (freshness depends on the clock, and BM25's
///   counts drift with every commit, touched or not), again in the background, and never
///   served past the expiration date of one of its results.
/// - Requests that miss on a search already running wait for its answer rather than
///   repeat it.
/// - At most `capacityBytes` of answers and keys are kept (an answer larger than an
///   eighth of that is not kept at all); past that, the oldest stored that was not asked
///   for again goes (CLOCK, second chance), so one-off queries do not push out the
///   frequent ones.
final class SearchCache: Sendable {
    struct Key: Hashable, Sendable {
        var query: String
        var limit: Int
        var offset: Int
        var platform: AppTarget.Platform
        var installed: [String]
        var snippets: Bool
        var typing: Bool
        var filter: SearchFilter
        var facets: Set<Facet>
        var sort: SearchSort

        init(_ request: SearchRequest) {
            query = request.text
            limit = request.limit
            offset = request.offset
            platform = request.platform
            installed = request.installed.sorted()
            snippets = request.snippets
            typing = request.typing
            filter = request.filter
            facets = request.facets
            sort = request.sort
        }

        var bytes: Int {
            query.utf8.count + installed.reduce(0) { $0 + $1.utf8.count + 16 } + filter.queryParameters.reduce(0) { $0 + $1.1.utf8.count + 16 } + 64
        }
    }

    /// Hits (fresh or within the staleness bound), misses that searched, and searches run
    /// in the background to refresh a stale answer.
    struct Statistics: Sendable {
        var hits = 0
        var staleHits = 0
        var misses = 0
        var refreshes = 0
        /// Current answers the commits read from the change log left fresh, and those they
        /// touched, counted at each reading.
        var answersKept = 0
        var answersTouched = 0
        /// Bytes the cached answers and their keys take.
        var bytes = 0
    }

    /// An answer as the service computes it: the response, the date it must not be served
    /// past, and what it was computed from.
    struct Answer {
        var response: HTTPServerResponse
        var expiresAt: Date
        var dependencies: AnswerDependencies
    }

    /// One search being computed; requests for the same key, index version and
    /// generation wait for it instead of running the same search.
    final class Flight: Sendable {
        let version: Int64
        let generation: Int
        let done = DispatchGroup()
        let response = Mutex<HTTPServerResponse?>(nil)

        init(version: Int64, generation: Int) {
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

    let lifetime: TimeInterval
    let refreshInterval: TimeInterval
    let capacityBytes: Int
    let maximumBackgroundSearches: Int
    /// The connection whose data version is watched; only this cache uses it.
    private let probe: SearchIndex
    private let answer: @Sendable (SearchRequest) throws -> Answer
    private let clock: @Sendable () -> Date
    private let state: Mutex<State>
    /// The probe's data version when the change log was last read; held while it is read,
    /// so one search reads it and the others wait for the result.
    private let reading = Mutex(Int.min)

    private let background = DispatchQueue(label: "searchlight.search-cache.refresh", attributes: .concurrent)

    init(indexPath: String, lifetime: TimeInterval, refreshInterval: TimeInterval, capacityBytes: Int = 64 << 20,
         clock: @escaping @Sendable () -> Date,
         answer: @escaping @Sendable (SearchRequest) throws -> Answer)
        throws(SearchIndexError)
    {
        self.lifetime = lifetime
        self.refreshInterval = refreshInterval
        self.capacityBytes = capacityBytes
        state = Mutex(State(capacityBytes: capacityBytes, lifetime: lifetime))
        maximumBackgroundSearches = max(1, ProcessInfo.processInfo.activeProcessorCount)
        self.clock = clock
        self.answer = answer
        probe = try SearchIndex(path: indexPath, mode: .existing)
        let latest = try probe.changes(after: .max).latest
        state.withLock { $0.version = latest }
    }

    var statistics: Statistics {
        state.withLock { state in
            var statistics = state.statistics
            statistics.bytes = state.entries.bytes
            return statistics
        }
    }

    /// The service has just written to the index: the answers its write touched go at once
    /// (all of them when the change log cannot be read), and no search begun before it is
    /// stored.
    func invalidate() {
        state.withLock { $0.generation += 1 }
        do {
            try readChanges(dataVersion: nil, dropping: true)
        } catch {
            state.withLock { $0.removeAll() }
        }
    }

    /// Reads the change log past the newest applied change and applies it; skipped when
    /// the probe's data version is the one seen at the last read (nothing was committed).
    private func readChanges(dataVersion: Int?, dropping: Bool) throws(SearchIndexError) {
        try reading.withLock { (seen: inout Int) throws(SearchIndexError) in
            if let dataVersion, dataVersion == seen { return }
            let (from, current) = state.withLock { state in
                var current: [(Key, AnswerDependencies)] = []
                state.entries.forEach { key, entry in if entry.version == state.version { current.append((key, entry.dependencies)) } }
                return (state.version, current)
            }
            let read = try probe.changes(after: from)
            // Tested outside the lock: searches go on meanwhile.
            var kept: [Key: Int64] = [:]
            if read.complete {
                kept.reserveCapacity(current.count)
                for (key, dependencies) in current { kept[key] = State.keptThrough(dependencies, read.changes, from: from) }
            }
            let now = clock()
            state.withLock { $0.apply(read, kept: kept, at: now, dropping: dropping) }
            if let dataVersion { seen = dataVersion }
        }
    }

    /// The answer to `request`, from the cache when the rules allow, else searched.
    func response(for request: SearchRequest) throws -> HTTPServerResponse {
        let key = Key(request)
        let now = request.now
        let dataVersion = try probe.dataVersion()
        if dataVersion != reading.withLock({ $0 }) { try readChanges(dataVersion: dataVersion, dropping: false) }
        let lookup: Lookup = state.withLock { state in
            state.settle(at: now, refreshInterval: refreshInterval)
            if let entry = state.entries.use(key, at: now.timeIntervalSince1970), now < entry.expiresAt {
                let age = now.timeIntervalSince(entry.storedAt)
                if entry.version == state.version, age < lifetime {
                    state.statistics.hits += 1
                    return .hit(entry.response, refresh: nil)
                }
                if state.isWithinRefreshInterval(entry.version), age < 2 * lifetime {
                    state.statistics.staleHits += 1
                    // Touched less than half the refresh interval ago: wait, so that commits in
                    // quick succession cost one refresh, not one each.
                    let waits = entry.version < state.version
                        && state.touchedAt(entry.version).map { now.timeIntervalSince($0) < refreshInterval / 2 } ?? false
                    guard !waits, state.flights[key] == nil, state.backgroundSearches < maximumBackgroundSearches else {
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
        let computed = try answer(request)
        let response = computed.response
        flight.response.withLock { $0 = response }
        state.withLock { state in
            guard flight.generation == state.generation else { return }
            let version = State.keptThrough(computed.dependencies, state.recentChanges, from: flight.version)
            if let existing = state.entries.peek(key, at: request.now.timeIntervalSince1970), existing.version > version { return }
            let bytes = key.bytes + response.bodyBytes + computed.dependencies.bytes
            guard bytes <= capacityBytes / 8 else { return }
            state.entries.insert(Entry(response: response, version: version, storedAt: request.now, expiresAt: computed.expiresAt,
                                       dependencies: computed.dependencies),
                                 bytes: bytes, for: key, at: request.now.timeIntervalSince1970)
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
