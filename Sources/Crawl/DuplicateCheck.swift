import Foundation
import StoreSeams

/// Whether a page's content is already indexed under another URL: the same body (its
/// digest, first this run, then the store), or text within a few SimHash bits of another
/// page of the same host (``NearDuplicateIndex``). Feeds ``PageDecision`` and learns from it.
struct DuplicateCheck {
    /// Bodies first seen this run, by digest: their URL (not yet in the store until a flush).
    private var contentsThisRun: [String: String] = [:]
    /// Each active host's indexed pages by SimHash, loaded from the store when it starts.
    private var nearDuplicates: [String: NearDuplicateIndex] = [:]

    /// Loads a host's indexed pages as it starts.
    mutating func start(_ origin: String, store: CrawlStore) throws {
        var index = NearDuplicateIndex()
        for (url, simhash) in try store.fingerprints(origin: origin, limit: NearDuplicateIndex.maximumPages) {
            index.insert(simhash, url: FNV.hash(url))
        }
        nearDuplicates[origin] = index
    }

    /// Forgets a host another worker takes over.
    mutating func stop(_ origin: String) {
        nearDuplicates[origin] = nil
    }

    /// For an indexable page, whether another URL has its content.
    func duplicate(of page: PageAnalyzer.Result, store: CrawlStore) throws -> PageDecision.Duplicate? {
        guard case .indexed = page.kind else { return nil }
        let url = page.entry.url.string
        if let hash = page.digest?.description, let first = try firstURL(withContent: hash, other: url, store: store) {
            return .exact(of: first)
        }
        if let print = page.fingerprint, nearDuplicates[page.entry.origin]?.hasNearDuplicate(of: print.simhash, url: FNV.hash(url)) == true {
            return .near
        }
        return nil
    }

    /// Remembers what the decision indexed, so that later pages are checked against it.
    mutating func learn(_ decision: PageDecision, page: PageAnalyzer.Result) {
        if let (hash, url) = decision.content { contentsThisRun[hash] = url }
        if decision.indexed, let print = page.fingerprint {
            nearDuplicates[page.entry.origin]?.insert(print.simhash, url: FNV.hash(page.entry.url.string))
        }
    }

    private func firstURL(withContent hash: String, other url: String, store: CrawlStore) throws -> String? {
        if let first = contentsThisRun[hash] { return first == url ? nil : first }
        guard let first = try store.firstURL(withContent: hash), first != url else { return nil }
        return first
    }
}
