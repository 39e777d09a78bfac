import Crawl
import Foundation
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
}
