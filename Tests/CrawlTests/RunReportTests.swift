import Crawl
import Foundation
import StoreSeams
import Testing

/// The run report for people counts in words English reads (issue 56: `read 1 sitemaps`).
@Suite struct RunReportTests {
    @Test func countsOfOneAreSingular() {
        var report = RunReport(id: "r1", started: Date())
        report.fetched = 1
        report.discovered = 1
        report.sitemaps = 1
        report.sitemapURLs = 1
        report.due = 1
        let summary = report.summary
        #expect(summary.contains("fetched 1 page ("), "\(summary)")
        #expect(summary.contains("discovered 1 new URL; read 1 sitemap listing 1 URL\n"), "\(summary)")
        #expect(summary.contains("left: 1 URL still due"), "\(summary)")
        report.sitemaps = 2
        report.fetched = 0
        #expect(report.summary.contains("read 2 sitemaps") && report.summary.contains("fetched 0 pages"))
    }

    @Test func aStopBySignalSaysWhichAndThatItWasClean() {
        var report = RunReport(id: "r2", started: Date())
        report.stoppedBy = "signal"
        report.stopSignal = "SIGINT"
        #expect(report.summary.hasPrefix("Crawl r2: stopped by SIGINT after "), "\(report.summary)")
        #expect(report.summary.contains("cleanly: every page fetched is committed"))
        #expect(report.json["stopSignal"] == "SIGINT" && report.json["stoppedBy"] == "signal")
    }

    /// Freshness is read from fixed buckets: a quantile is the bound of the bucket it falls
    /// in, one past the last bound is said as such, and the JSON's buckets are cumulative.
    @Test func freshnessIsReportedByBucket() {
        var report = RunReport(id: "r3", started: Date())
        var latencies = LatencyHistogram()
        for seconds in [0.1, 0.3, 0.3, 1.5] + Array(repeating: 0.2, count: 95) + [7200] { latencies.record(seconds) }
        report.freshness.fetchToSearchable = latencies
        #expect(latencies.count == 100 && latencies.quantile(0.5) == 0.25 && latencies.quantile(0.99) == 2)
        #expect(latencies.quantile(1) == .infinity)
        #expect(report.summary.contains("  searchable: fetch → searchable p50 ≤ 0.25 s, p99 ≤ 2 s (100 pages)\n"), "\(report.summary)")
        let buckets = report.json["freshness"]?["fetchToSearchable"]?["buckets"]?.arrayValue ?? []
        #expect(buckets.first?["count"] == 96 && buckets.last?["le"] == "+Inf" && buckets.last?["count"] == 100)
        #expect(report.json["freshness"]?["fetchToSearchable"]?["p99"] == 2)
        var slow = LatencyHistogram()
        slow.record(5000)
        report.freshness.noticeToSearchable = slow
        #expect(report.summary.contains("notice → searchable p50 > 3600 s, p99 > 3600 s (1 page)"), "\(report.summary)")
        #expect(CrawlFreshness(rows: report.freshness.rows) == report.freshness, "what a store keeps reads back the same")
        // A clock set back decades, or a value read from a damaged store, counts and writes
        // without overflowing.
        var odd = CrawlFreshness()
        for seconds in [1e300, -5, .nan, .infinity] { odd.noticeToSearchable.record(seconds) }
        odd.add(CrawlFreshness(rows: [("notice-to-searchable", -1, .max), ("notice-to-searchable", 3, .max)]))
        #expect(odd.noticeToSearchable.count > 4 && odd.rows.allSatisfy { $0.amount >= 0 })
    }
}
