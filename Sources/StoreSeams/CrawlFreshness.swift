import Foundation
import JSON
import TextUtilities

/// Counts of latencies in fixed buckets, as Prometheus histograms keep them: what a
/// quantile can be read from without keeping every observation (memory is constant).
public struct LatencyHistogram: Sendable, Equatable {
    /// The buckets' upper bounds, in seconds; one more bucket holds everything above the last.
    public static let bounds: [Double] = [0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 900, 3600]

    /// Observations per bucket (not cumulative), ``bounds`` order, the overflow last.
    public private(set) var counts = [Int](repeating: 0, count: LatencyHistogram.bounds.count + 1)
    /// The observations' total, in seconds.
    public private(set) var sum = 0.0

    public init() {}

    /// A histogram read back from a store's rows (counts of any length are cut or padded).
    public init(counts: [Int], sum: Double) {
        for (index, count) in counts.prefix(self.counts.count).enumerated() { self.counts[index] = min(max(0, count), Self.largestCount) }
        self.sum = sum.isFinite ? min(max(0, sum), Self.largestSum) : 0
    }

    /// What one observation counts as at most (a clock set back decades reads as this), and
    /// the most a bucket holds: sums and counts stay far inside Int64, also in milliseconds.
    static let longest = 1e9
    static let largestCount = 1 << 40
    /// The largest total kept, in seconds: in milliseconds (``CrawlFreshness/rows``) still an Int64.
    static let largestSum = 9e15

    public var count: Int { counts.reduce(0, +) }

    public mutating func record(_ seconds: Double) {
        let value = seconds.isFinite ? min(max(0, seconds), Self.longest) : 0
        let bucket = Self.bounds.firstIndex { value <= $0 } ?? Self.bounds.count
        counts[bucket] = min(counts[bucket] + 1, Self.largestCount)
        sum = min(sum + value, Self.largestSum)
    }

    public mutating func add(_ other: LatencyHistogram) {
        for index in counts.indices { counts[index] = min(counts[index] + other.counts[index], Self.largestCount) }
        sum = min(sum + other.sum, Self.largestSum)
    }

    /// The upper bound of the bucket holding the `fraction` quantile (p99: 0.99): the
    /// latency at most that many observations stayed within. Infinity when it fell past
    /// the last bound; nil with no observations.
    public func quantile(_ fraction: Double) -> Double? {
        let total = count
        guard total > 0 else { return nil }
        let rank = Int((Double(total) * min(max(fraction, 0), 1)).rounded(.up))
        var seen = 0
        for (index, count) in counts.enumerated() {
            seen += count
            if seen >= max(rank, 1) { return index < Self.bounds.count ? Self.bounds[index] : .infinity }
        }
        return .infinity
    }
}

/// How fresh a crawl keeps the index (issue 59's figures): from an IndexNow notice to the
/// page's item being searchable, and from a page's fetch to its item being searchable.
/// Kept per run (the run report) and added up in the crawl's store (`status`, `/metrics`).
public struct CrawlFreshness: Sendable, Equatable {
    /// Notice taken → the notified page's fetch recorded with its item written.
    public var noticeToSearchable = LatencyHistogram()
    /// Page fetched → its item written to the index.
    public var fetchToSearchable = LatencyHistogram()

    public init() {}

    public var isEmpty: Bool { noticeToSearchable.count == 0 && fetchToSearchable.count == 0 }

    /// Counts pages whose records are written at `searchable`, after their items: a notified
    /// page whatever came of its fetch (a notice is answered once the page is fetched and
    /// handled), a fetched page whose item was written.
    public mutating func record(_ outcomes: [FrontierOutcome], searchable: Date) {
        for outcome in outcomes {
            if let noticed = outcome.noticed { noticeToSearchable.record(searchable.timeIntervalSince(noticed)) }
            if outcome.itemWritten, let fetched = outcome.handled { fetchToSearchable.record(searchable.timeIntervalSince(fetched)) }
        }
    }

    public mutating func add(_ other: CrawlFreshness) {
        noticeToSearchable.add(other.noticeToSearchable)
        fetchToSearchable.add(other.fetchToSearchable)
    }

    /// The histograms as rows (metric, bucket, amount) for a store's `freshness` table, which
    /// adds rows to what it holds; bucket -1 holds the sum in milliseconds.
    public var rows: [(metric: String, bucket: Int, amount: Int64)] {
        [(Self.noticeMetric, noticeToSearchable), (Self.fetchMetric, fetchToSearchable)].flatMap { metric, histogram in
            [(metric, -1, Int64(histogram.sum * 1000))] + histogram.counts.enumerated().map { (metric, $0.offset, Int64($0.element)) }
        }
    }

    /// Reads back what ``rows`` wrote (rows of unknown metrics or buckets are ignored).
    public init(rows: [(metric: String, bucket: Int, amount: Int64)]) {
        var counts: [String: [Int]] = [:]
        var sums: [String: Double] = [:]
        for row in rows where row.bucket >= -1 && row.bucket <= LatencyHistogram.bounds.count {
            if row.bucket == -1 {
                sums[row.metric] = Double(row.amount) / 1000
            } else {
                counts[row.metric, default: [Int](repeating: 0, count: LatencyHistogram.bounds.count + 1)][row.bucket] = Int(clamping: row.amount)
            }
        }
        noticeToSearchable = LatencyHistogram(counts: counts[Self.noticeMetric] ?? [], sum: sums[Self.noticeMetric] ?? 0)
        fetchToSearchable = LatencyHistogram(counts: counts[Self.fetchMetric] ?? [], sum: sums[Self.fetchMetric] ?? 0)
    }

    static let noticeMetric = "notice-to-searchable"
    static let fetchMetric = "fetch-to-searchable"

    /// `{"noticeToSearchable": {count, p50, p99, seconds, buckets: [{le, count}]}, …}`: p50
    /// and p99 are bucket bounds (the latency at most that share stayed within), null past
    /// the last bound or with no pages.
    public var json: JSONValue {
        func histogram(_ histogram: LatencyHistogram) -> JSONValue {
            func bound(_ value: Double?) -> JSONValue { value.flatMap { $0.isFinite ? JSONValue($0) : nil } ?? .null }
            var cumulative = 0
            return .object(JSONObject([
                ("count", JSONValue(histogram.count)), ("p50", bound(histogram.quantile(0.5))), ("p99", bound(histogram.quantile(0.99))),
                ("seconds", JSONValue((histogram.sum * 1000).rounded() / 1000)),
                ("buckets", .array(histogram.counts.enumerated().map { index, count in
                    cumulative += count
                    return ["le": index < LatencyHistogram.bounds.count ? JSONValue(LatencyHistogram.bounds[index]) : .string("+Inf"),
                            "count": JSONValue(cumulative)]
                })),
            ]))
        }
        return .object(JSONObject([("noticeToSearchable", histogram(noticeToSearchable)), ("fetchToSearchable", histogram(fetchToSearchable))]))
    }

    /// One line for people: `notice → searchable p50 ≤ 1 s, p99 ≤ 2 s (12 pages); …`; nil with no pages.
    public var summary: String? {
        func part(_ name: String, _ histogram: LatencyHistogram) -> String? {
            guard let p50 = histogram.quantile(0.5), let p99 = histogram.quantile(0.99) else { return nil }
            func bound(_ value: Double) -> String {
                value.isFinite ? "≤ " + (value < 1 ? String(value) : String(Int(value))) + " s" : "> \(Int(LatencyHistogram.bounds.last ?? 0)) s"
            }
            return "\(name) p50 \(bound(p50)), p99 \(bound(p99)) (\(Plural.count(histogram.count, "page")))"
        }
        let parts = [part("notice → searchable", noticeToSearchable), part("fetch → searchable", fetchToSearchable)].compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    /// Prometheus histograms (`searchlight_crawl_notice_to_searchable_seconds`, `…_fetch_…`),
    /// cumulative buckets as the exposition format wants them.
    public var prometheusLines: [String] {
        [("notice_to_searchable", "IndexNow notice taken to the notified page's fetch recorded, its item searchable", noticeToSearchable),
         ("fetch_to_searchable", "Page fetched to its item searchable", fetchToSearchable)].flatMap { name, help, histogram in
            let metric = "searchlight_crawl_\(name)_seconds"
            var cumulative = 0
            var lines = ["# HELP \(metric) \(help), over every crawl of the store.", "# TYPE \(metric) histogram"]
            for (index, count) in histogram.counts.enumerated() {
                cumulative += count
                let bound = index < LatencyHistogram.bounds.count ? String(LatencyHistogram.bounds[index]) : "+Inf"
                lines.append("\(metric)_bucket{le=\"\(bound)\"} \(cumulative)")
            }
            return lines + ["\(metric)_sum \(histogram.sum)", "\(metric)_count \(histogram.count)"]
        }
    }
}
