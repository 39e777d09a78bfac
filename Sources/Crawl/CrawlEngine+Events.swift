import Dispatch
import Fetch
import Foundation
import PageItems
import StoreSeams
import WebRules
import WebURL

/// What the coordinator does with each event the fetch and extraction threads post: host
/// files, sitemaps, and pages (their decision, duplicates, counters and writes).
extension CrawlEngine {
    // MARK: events

    func handle(_ event: CrawlEvent, now: Date) throws {
        switch event {
        case .page(let result, let response):
            try handlePage(result, response, now: now)
        case .file(let origin, let file, let response):
            hosts.inFlight -= 1
            hosts[origin]?.finished()
            archive?.archive(response, url: response.request.url, digest: nil, duplicateOf: nil)
            guard var host = hosts[origin] else { return }
            let effects: HostMachine.Effects
            switch file {
            case .robots(let hops):
                if let error = response.error { report.hosts[origin, default: RunReport.Host()].lastError = error.message }
                let verdict = HostFiles.robots(response, hops: hops, origin: origin, record: host.record, now: now, token: configuration.productToken)
                effects = host.robotsArrived(verdict, hops: hops, configuration: configuration, now: now)
            case .association(let kind):
                effects = host.associationArrived(HostFiles.association(kind, response), now: now)
            case .sitemap(let url, let crossSubmit):
                host.sitemapFinished()
                hosts[origin] = host
                try readSitemap(HostFiles.sitemap(response, url: url, crossSubmit: crossSubmit, admission: admission), from: url, origin: origin)
                return
            }
            hosts[origin] = host
            try apply(effects, for: origin)
        }
    }

    func readSitemap(_ reading: HostFiles.SitemapReading, from url: WebURL, origin: String) throws {
        for (reason, count) in reading.skipped { report.skip(reason, count: count) }
        guard reading.read else { return }
        report.sitemaps += 1
        report.sitemapURLs += reading.listed
        for nested in reading.nested where admission.readsSitemap(nested, namedBy: origin) {
            try activate(nested.origin)
            hosts[nested.origin]?.queueSitemap(nested)
        }
        for entry in reading.entries {
            writer.batch.sitemapNotes.append((entry.url, entry.lastModified, entry.changeFrequency))
            try addLink(FrontierURL(url: entry.url, depth: 1, foundOn: url.string, fromSitemap: true, priority: entry.priority,
                                changeFrequency: entry.changeFrequency, sitemapLastModified: entry.lastModified))
        }
    }

    func handlePage(_ result: PageAnalyzer.Result, _ response: FetchResponse, now: Date) throws {
        let entry = result.entry
        hosts.inFlight -= 1
        hosts[entry.origin]?.finished()
        let duplicate = try duplicates.duplicate(of: result, store: store)
        if let print = result.fingerprint,
            let (template, evidence) = hosts[entry.origin]?.patterns.record(entry.url, duplicate: duplicate != nil, pageShingles: print.shingles,
                                                                pageWords: print.words, identity: print.identity)
        {
            report.note(RunReport.Pattern(template: template.text, verdict: evidence.verdict.rawValue, fetched: evidence.fetched,
                                          stale: evidence.stale, duplicates: evidence.duplicates))
        }
        let decision = PageDecision(result, duplicate: duplicate, admission: admission, configuration: configuration, now: now)
        duplicates.learn(decision, page: result)
        report.record(decision, page: result)
        writer.batch.apply(decision, page: result)
        if let seconds = decision.backOff, let record = hosts[entry.origin]?.backOff(for: seconds, now: now) { writer.batch.hosts[entry.origin] = record }
        for (origin, requests) in result.render?.requests ?? [:] { hosts[origin]?.counted(requests: requests, now: now) }
        for link in decision.links { try addLink(link) }
        var duplicateOf: String?
        if case .exact(let first) = duplicate { duplicateOf = first }
        if response.status != 304 {
            // A rendered page's digest is its rendered document's: its response is archived
            // whole, with its own payload digest, however many shells share those bytes.
            let rendered = result.render?.html
            archive?.archive(response, url: entry.url.string, digest: rendered == nil ? result.digest : nil,
                             duplicateOf: rendered == nil ? duplicateOf : nil, rendered: rendered)
        }
    }

    func addLink(_ link: FrontierURL) throws {
        guard writer.isFirstMention(link.url.string) else { return }
        if hosts[link.url.origin]?.isTrapped(link.url) == true {
            report.skip(.trapPattern)
            return
        }
        writer.batch.newURLs.append(link)
        try activate(link.url.origin)
    }
}
