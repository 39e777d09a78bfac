import Fetch
import Foundation
import StoreSeams

/// Sending requests as the hosts ask for them: round-robin over the active hosts within
/// the global and per-host caps, each fetched page handed from the fetch thread to the
/// ``ExtractionPool`` and its analysis posted back to the coordinator.
extension CrawlEngine {
    func dispatch(now: Date) throws {
        var visited = 0
        while visited < hosts.order.count, hosts.inFlight < configuration.concurrency, let origin = hosts.nextInTurn() {
            visited += 1
            try dispatch(origin, now: now)
        }
    }

    /// Does what the host asks for until it has nothing to send now.
    func dispatch(_ origin: String, now: Date) throws {
        while var host = hosts[origin] {
            let limits = HostMachine.Limits(perHost: configuration.perHostConnections, globalSlot: hosts.inFlight < configuration.concurrency,
                                            pageSlot: hosts.dispatchedPages < configuration.maximumPages, pageCap: configuration.maximumPagesPerHost)
            let action = host.next(now: now, limits: limits)
            hosts[origin] = host
            switch action {
            case nil:
                return
            case .claim:
                // Links found since the last flush are only claimable once written.
                if !writer.batch.newURLs.isEmpty { try flushLinks(now: now) }
                hosts[origin]?.supply(try store.claim(origin: origin, now: now, limit: 32))
            case .exclude(let entry, let reason, let due, let deleteItem):
                report.skip(reason)
                if deleteItem, let item = entry.itemID { writer.batch.delete(item) }
                var outcome = FrontierOutcome(keeping: entry, state: .excluded, due: due, handled: now)
                outcome.reason = reason.label
                if deleteItem { outcome.itemID = nil }
                writer.batch.outcomes.append(outcome)
            case .fetchFile(let url, let file):
                hosts.inFlight += 1
                let inbox = self.inbox
                var request = FetchRequest(url: url)
                request.maximumBodyBytes = file.maximumBodyBytes
                request.recordsRequestHeaders = archive != nil
                downloader.start(request) { inbox.post(.file(origin: origin, file, $0)) }
            case .fetchPage(let entry, let headers):
                hosts.inFlight += 1
                hosts.dispatchedPages += 1
                let (associations, robots) = (host.associations, host.robots)
                let (analyzer, inbox, extraction, clock) = (self.analyzer, self.inbox, self.extraction, configuration.clock)
                var request = FetchRequest(url: entry.url.string, headers: headers)
                request.recordsRequestHeaders = archive != nil
                downloader.start(request) { response in
                    // On the fetch thread: hand the page over and return to the transfers.
                    extraction.submit {
                        inbox.post(.page(analyzer.analyze(response, entry: entry, associations: associations, robots: robots, now: clock.now), response))
                    }
                }
            }
        }
    }
}
