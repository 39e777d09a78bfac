import Foundation
import Items
import Markup
import Testing
import WebRules
import WebURL

@testable import Crawl

/// "May this URL be followed", asked of ``LinkAdmission`` alone, and when a worker of a
/// shared store asks the fleet (``FleetMembership``): both pure, tested without a server.
struct LinkAdmissionTests {
    let page = WebURL("https://site.example/list")!

    func admission(depth: Int = 20) throws -> LinkAdmission {
        LinkAdmission(keys: FrontierKey(), scope: try CrawlScope(seeds: [WebURL("https://site.example/")!]), maximumDepth: depth)
    }

    func markup(_ head: String, _ body: String) -> PageMarkup {
        MarkupExtractor().extract(Array("<html><head>\(head)</head><body>\(body)</body></html>".utf8), url: page)
    }

    @Test func aPageGivesEachAdmittedLinkOnceAndCountsTheRest() throws {
        let links = try admission().links(of: markup("<link rel=canonical href=/list?sort=new>", """
            <a href="/a">a</a> <a href="/a#top">again</a> <a href="https://other.example/x">away</a>
            <a href="/b" rel="nofollow">hint</a> <a href="/c" rel="external nofollow">hint too</a> <a href="/d">d</a>
            """), at: page)
        #expect(links.links.map(\.string) == ["https://site.example/a", "https://site.example/d", "https://site.example/list?sort=new"])
        #expect(links.dropped == [.outOfScope: 1])
    }

    /// A page's links are decided site by site with the last site's answer kept: links that
    /// alternate between hosts, ports and schemes still each get their own site's answer, as
    /// one link admitted alone would.
    @Test func linksAlternatingBetweenSitesEachGetTheirOwnSitesAnswer() throws {
        let admission = try admission()
        let targets = ["/a", "https://other.example/b", "/c", "https://site.example:8443/d", "http://site.example/e", "/f",
                       "https://sub.site.example/g", "https://other.example/h", "/i"]
        let body = targets.map { "<a href=\"\($0)\">x</a>" }.joined(separator: " ")
        let links = admission.links(of: markup("", body), at: page)
        let alone = targets.compactMap { target -> String? in
            guard case .follow(let key) = admission.admit(WebURL(target, relativeTo: page)!, from: .link) else { return nil }
            return key.string
        }
        #expect(links.links.map(\.string) == alone)
        #expect(alone.contains("https://site.example/a") && alone.contains("https://site.example/i"))
        #expect(!alone.contains { $0.hasPrefix("https://other.example") })
        #expect(links.dropped[.outOfScope] == targets.count - alone.count)
    }

    @Test func aNofollowPageGivesNoLinksNotEvenItsCanonical() throws {
        let links = try admission().links(of: markup("<meta name=robots content='index, nofollow'><link rel=canonical href=/other>",
                                                     "<a href=/a>a</a>"), at: page)
        #expect(links.links.isEmpty && links.dropped.isEmpty)
    }

    @Test func depthAndRedirectLimits() throws {
        let admission = try admission(depth: 2)
        #expect(admission.followsLinks(fromDepth: 0) && admission.followsLinks(fromDepth: 1))
        #expect(!admission.followsLinks(fromDepth: 2))
        #expect(admission.followsRedirect(afterHops: LinkAdmission.maximumRedirects - 1))
        #expect(!admission.followsRedirect(afterHops: LinkAdmission.maximumRedirects))
    }

    @Test func aBusyWorkerLooksOncePerIntervalAnIdleOneAsksWhetherItIsDone() {
        let start = Date(timeIntervalSince1970: 1_000_000)
        var fleet = FleetMembership(started: start)
        #expect(fleet.decide(now: start.addingTimeInterval(0.5), idle: false) == .wait)
        #expect(fleet.decide(now: start.addingTimeInterval(1), idle: false) == .look)
        #expect(fleet.decide(now: start.addingTimeInterval(1.5), idle: false) == .wait)
        #expect(fleet.decide(now: start.addingTimeInterval(1.6), idle: true) == .askWhetherDone)
        #expect(fleet.decide(now: start.addingTimeInterval(2.0), idle: true) == .wait, "the shared frontier is asked at most once a second")
        #expect(fleet.decide(now: start.addingTimeInterval(2.4), idle: false) == .wait, "asking whether it is done looked too")
        #expect(fleet.decide(now: start.addingTimeInterval(2.7), idle: true) == .askWhetherDone)
    }

    @Test func anIdleWorkerEndsOnlyWhenTheFleetHasNothingLeftForIt() {
        #expect(FleetMembership.mayEnd(heldElsewhere: 0, freeWithWork: 0))
        #expect(!FleetMembership.mayEnd(heldElsewhere: 1, freeWithWork: 0), "another worker's hosts come to it when their lease runs out")
        #expect(!FleetMembership.mayEnd(heldElsewhere: 0, freeWithWork: 2), "a host a killed worker held is free once its lease ends")
    }
}
