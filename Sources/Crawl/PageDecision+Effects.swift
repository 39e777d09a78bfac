import StoreSeams

/// A page's decision written down: what it counts in the run's report and what it puts in
/// the next batch. The links go through the engine, which filters those seen this run.
extension RunReport {
    mutating func record(_ decision: PageDecision, page: PageAnalyzer.Result) {
        let origin = page.entry.origin
        // A fetch that got no HTTP answer (DNS, connect, TLS, a timeout) reached nothing: it
        // is counted by its reason and as the host's error, not as fetched.
        if page.status != 0 {
            fetched += 1
            hosts[origin, default: Host()].fetched += 1
        }
        bytes += page.bytes
        hosts[origin, default: Host()].bytes += page.bytes
        for (reason, count) in decision.skipped { skip(reason, count: count) }
        if let reason = decision.outcome?.reason, let detail = decision.outcome?.detail { note(reason, url: page.entry.url.string, detail: detail) }
        if decision.hostError { hosts[origin, default: Host()].errors += 1 }
        if decision.notModified { notModified += 1 }
        if decision.redirect { redirects += 1 }
        if decision.indexed {
            indexed += 1
            hosts[origin, default: Host()].indexed += 1
        }
        if let render = page.render {
            renderSeconds += render.seconds
            if let failure = render.failure { renderFailures[failure.rawValue, default: 0] += 1 } else { rendered += 1 }
            for (reason, count) in render.refused { renderRefused[reason.rawValue, default: 0] += count }
        }
    }
}

extension CrawlBatch {
    mutating func apply(_ decision: PageDecision, page: PageAnalyzer.Result) {
        let entry = page.entry
        if let due = decision.postpone { postponed.append((entry.id, due)) }
        for id in decision.deletes { delete(id) }
        if let item = decision.upsert { upserts.append(item) }
        if let (id, until) = decision.confirmation { confirmations[id] = until }
        if let content = decision.content { contents.append(content) }
        if decision.indexed, let print = page.fingerprint { fingerprints.append((entry.origin, entry.url.string, print.simhash)) }
        if let outcome = decision.outcome { outcomes.append(outcome) }
    }
}
