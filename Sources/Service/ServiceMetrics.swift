import Foundation
import ServiceAPI
import StoreSeams
import Synchronization

/// Request counts and latencies per route and status, in Prometheus's text format
/// (<https://prometheus.io/docs/instrumenting/exposition_formats/>).
final class ServiceMetrics: Sendable {
    /// Latency histogram buckets, in seconds.
    static let buckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

    private struct Latency {
        var counts: [Int] = Array(repeating: 0, count: ServiceMetrics.buckets.count)
        var sum = 0.0
        var total = 0
    }

    private struct State {
        var requests: [String: [Int: Int]] = [:]
        var latencies: [String: Latency] = [:]
    }

    private let state = Mutex(State())
    let started = Date()

    func record(route: String, status: Int, seconds: Double) {
        state.withLock { state in
            state.requests[route, default: [:]][status, default: 0] += 1
            var latency = state.latencies[route] ?? Latency()
            for (index, bound) in Self.buckets.enumerated() where seconds <= bound { latency.counts[index] += 1 }
            latency.sum += seconds
            latency.total += 1
            state.latencies[route] = latency
        }
    }

    /// The exposition text, with the index, result-cache and crawl figures given by the caller.
    func text(indexItems: Int, indexBytes: Int, cache: SearchCache.Statistics?, crawl: (freshness: CrawlFreshness, due: Int)? = nil) -> String {
        let snapshot = state.withLock { $0 }
        var lines = [
            "# HELP searchlight_http_requests_total HTTP requests handled, by route and status.",
            "# TYPE searchlight_http_requests_total counter",
        ]
        for (route, statuses) in snapshot.requests.sorted(by: { $0.key < $1.key }) {
            for (status, count) in statuses.sorted(by: { $0.key < $1.key }) {
                lines.append("searchlight_http_requests_total{route=\"\(route)\",status=\"\(status)\"} \(count)")
            }
        }
        lines += [
            "# HELP searchlight_http_request_duration_seconds Time to handle a request, by route.",
            "# TYPE searchlight_http_request_duration_seconds histogram",
        ]
        for (route, latency) in snapshot.latencies.sorted(by: { $0.key < $1.key }) {
            for (index, bound) in Self.buckets.enumerated() {
                lines.append("searchlight_http_request_duration_seconds_bucket{route=\"\(route)\",le=\"\(bound)\"} \(latency.counts[index])")
            }
            lines.append("searchlight_http_request_duration_seconds_bucket{route=\"\(route)\",le=\"+Inf\"} \(latency.total)")
            lines.append("searchlight_http_request_duration_seconds_sum{route=\"\(route)\"} \(latency.sum)")
            lines.append("searchlight_http_request_duration_seconds_count{route=\"\(route)\"} \(latency.total)")
        }
        lines += [
            "# HELP searchlight_index_items Items in the index, expired ones included until purged.",
            "# TYPE searchlight_index_items gauge",
            "searchlight_index_items \(indexItems)",
            "# HELP searchlight_index_bytes Size of the index files (database and write-ahead log).",
            "# TYPE searchlight_index_bytes gauge",
            "searchlight_index_bytes \(indexBytes)",
        ]
        if let cache {
            lines += [
                "# HELP searchlight_search_cache_requests_total Searches answered from the result cache: fresh (hit), within the refresh interval (stale) or by searching the index (miss).",
                "# TYPE searchlight_search_cache_requests_total counter",
                "searchlight_search_cache_requests_total{result=\"hit\"} \(cache.hits)",
                "searchlight_search_cache_requests_total{result=\"stale\"} \(cache.staleHits)",
                "searchlight_search_cache_requests_total{result=\"miss\"} \(cache.misses)",
                "# HELP searchlight_search_cache_refreshes_total Searches run in the background to refresh a stale answer.",
                "# TYPE searchlight_search_cache_refreshes_total counter",
                "searchlight_search_cache_refreshes_total \(cache.refreshes)",
                "# HELP searchlight_search_cache_changes_total Cached answers the commits read from the change log left fresh (kept) or touched, counted at each reading.",
                "# TYPE searchlight_search_cache_changes_total counter",
                "searchlight_search_cache_changes_total{effect=\"kept\"} \(cache.answersKept)",
                "searchlight_search_cache_changes_total{effect=\"touched\"} \(cache.answersTouched)",
                "# HELP searchlight_search_cache_bytes Memory the cached answers and their keys take (bounded by --cache-megabytes).",
                "# TYPE searchlight_search_cache_bytes gauge",
                "searchlight_search_cache_bytes \(cache.bytes)",
            ]
        }
        if let crawl {
            lines += [
                "# HELP searchlight_crawl_due_urls URLs of the crawl's frontier due now: its backlog.",
                "# TYPE searchlight_crawl_due_urls gauge",
                "searchlight_crawl_due_urls \(crawl.due)",
            ] + crawl.freshness.prometheusLines
        }
        lines += [
            "# HELP searchlight_uptime_seconds Seconds since the service started.",
            "# TYPE searchlight_uptime_seconds gauge",
            "searchlight_uptime_seconds \(Int(Date().timeIntervalSince(started)))",
        ]
        return lines.joined(separator: "\n") + "\n"
    }
}
