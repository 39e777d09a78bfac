import Foundation
import Items
import Testing

/// The item contract (`SearchableItem.validated`): one set of rules, three ways of meeting
/// a broken one — a push is refused, a mapped record is cleaned or skipped, a crawled page
/// keeps what it could give.
@Suite struct ItemContractTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func item(_ change: (inout SearchableItem) -> Void) -> SearchableItem {
        var item = SearchableItem(uniqueIdentifier: "a", title: "A", webURL: "https://example.com/a", lastUpdated: now)
        change(&item)
        return item
    }

    @Test func eachPolicyMeetsABrokenValueItsOwnWay() throws {
        let bad = item {
            $0.thumbnailURL = "javascript:alert(1)"
            $0.rating = 7
            $0.ratingScale = 5
            $0.apps = [AppTarget(platform: .ios, appStoreID: "1", deepLink: "data:text/html,x")]
            $0.language = "not a tag"
        }
        let pushed = #expect(throws: SearchableItem.Problem.self) { try bad.validated(.pushed, now: now) }
        #expect(pushed?.field == "thumbnailURL" && pushed?.kind == .invalid, "the first broken rule, by field")
        #expect(throws: SearchableItem.Problem.self) { try bad.validated(.rendered, now: now) }
        let crawled = try bad.validated(.crawled, now: now)
        #expect(crawled.thumbnailURL == nil && crawled.rating == nil && crawled.language == nil)
        #expect(crawled.apps.first?.deepLink == nil && crawled.apps.count == 1, "the app stays, its unsafe link goes")
    }

    @Test func textIsRefusedForAPushAndCleanedOtherwise() throws {
        let messy = item {
            $0.title = "  Lemon\u{7}tart  "
            $0.contentDescription = "one\ntwo\u{85}"
            $0.address = String(repeating: "x", count: SearchableItem.Limits.addressBytes + 10)
        }
        let refused = #expect(throws: SearchableItem.Problem.self) { try messy.validated(.pushed, now: now) }
        #expect(refused?.kind == .controlCharacter && refused?.field == "title")
        let cleaned = try messy.validated(.rendered, now: now)
        #expect(cleaned.title == "Lemon tart")
        #expect(SearchableItem.clean("a\u{7F}b\u{9F}c\u{B}d", limit: 100, multiline: true) == "a b c d", "DEL, C1 and a vertical tab")
        #expect(SearchableItem.clean("é" + String(repeating: "é", count: 10), limit: 5, multiline: false) == "éé", "cut on a scalar boundary")
        #expect(cleaned.contentDescription == "one\ntwo", "a multi-line field keeps its line break, loses the C1 control")
        #expect(cleaned.address?.utf8.count == SearchableItem.Limits.addressBytes)
        // Multi-byte text is no control character, U+00A0 neither; U+0085 after it is one.
        #expect(try item { $0.title = "天气预订\u{A0}café 旅行" }.validated(.pushed, now: now).title == "天气预订\u{A0}café 旅行")
        let c1 = #expect(throws: SearchableItem.Problem.self) { try item { $0.title = "天气预订 旅行\u{85}" }.validated(.pushed, now: now) }
        #expect(c1?.kind == .controlCharacter)
        let empty = #expect(throws: SearchableItem.Problem.self) { try item { $0.title = " \u{1} " }.validated(.rendered, now: now) }
        #expect(empty?.kind == .empty && empty?.field == "title")
    }

    /// One lifetime rule: a month without a date for pushes and activities, none for a
    /// mapped record (its ingest removes it), at most ten years ahead for all.
    @Test func lifetimes() throws {
        #expect(try item { _ in }.validated(.pushed, now: now).expirationDate == now.addingTimeInterval(SearchableItem.defaultLifetime))
        #expect(try item { _ in }.validated(.rendered, now: now).expirationDate == nil)
        let far = item { $0.expirationDate = now.addingTimeInterval(20 * 365 * 86_400) }
        #expect((#expect(throws: SearchableItem.Problem.self) { try far.validated(.pushed, now: now) })?.field == "expirationDate")
        #expect(try far.validated(.crawled, now: now).expirationDate == now.addingTimeInterval(SearchableItem.Limits.lifetime))
    }

    @Test func ratingsAndCountsKeepToTheirScale() throws {
        #expect(try item { $0.ratingScale = 0 }.validated(.crawled, now: now).ratingScale == 5)
        #expect(try item { $0.rating = 80; $0.ratingScale = 100 }.validated(.pushed, now: now).rating == 80)
        #expect(try item { $0.rating = .nan }.validated(.crawled, now: now).rating == nil)
        #expect(try item { $0.ratingCount = -1 }.validated(.crawled, now: now).ratingCount == nil)
        #expect(throws: SearchableItem.Problem.self) { try item { $0.domainIdentifier = "bad domain" }.validated(.pushed, now: now) }
        #expect(try item { $0.domainIdentifier = "com.example" }.validated(.pushed, now: now).domainIdentifier == "com.example")
    }

    /// An identifier is never cut (a cut one would be another item's): too long is an error
    /// in every policy; a crawled page's identifier is its URL, up to a URL's limit.
    @Test func identifiersAreNeverCut() throws {
        let long = String(repeating: "x", count: SearchableItem.Limits.identifierBytes + 1)
        for policy in [SearchableItem.Policy.pushed, .rendered, .crawled] {
            let problem = #expect(throws: SearchableItem.Problem.self) { try item { $0.uniqueIdentifier = long }.validated(policy, now: now) }
            #expect(problem?.kind == .tooLong && problem?.field == "uniqueIdentifier")
        }
        let url = "https://example.com/" + String(repeating: "a", count: 1500)
        let page = try item { $0.uniqueIdentifier = url; $0.webURL = url; $0.source = .crawled }.validated(.crawled, now: now)
        #expect(page.uniqueIdentifier == url)
    }

    /// An item another of our stores wrote is read back whole even when a newer rule refuses
    /// one of its fields (an app's name past today's limit, a package that is not reverse
    /// DNS): the text is cut, the field that breaks a rule goes, the item stays; an item
    /// with no title at all is not kept.
    @Test func aStoredItemFromBeforeANewRuleKeepsEverythingElse() throws {
        let old = item {
            $0.source = .crawled
            $0.apps = [AppTarget(platform: .android, package: "not a package", name: String(repeating: "n", count: 400), deepLink: "shop://p/1")]
        }
        #expect(throws: SearchableItem.Problem.self) { try old.validated(.relayed, now: now) }
        let restored = try #require(SearchableItem.restored(old.storedJSON, owner: "tenant", now: now))
        #expect(restored.title == "A" && restored.owner == "tenant" && restored.apps.first?.deepLink == "shop://p/1")
        #expect(restored.apps.first?.package == nil, "what breaks a rule goes")
        #expect(restored.apps.first?.name?.utf8.count == SearchableItem.Limits.appNameBytes, "text is cut to its limit")
        var untitled = old.storedJSON.objectValue!
        untitled["title"] = ""
        #expect(SearchableItem.restored(.object(untitled), owner: nil, now: now) == nil)
    }

    @Test func appStoreIDsAreNumeric() throws {
        let bad = item { $0.apps = [AppTarget(platform: .ios, appStoreID: "12ab", deepLink: "shop://p/1")] }
        #expect((#expect(throws: SearchableItem.Problem.self) { try bad.validated(.pushed, now: now) })?.field == "apps[0].appStoreId")
        #expect(try bad.validated(.crawled, now: now).apps.first?.appStoreID == nil)
        let good = item { $0.apps = [AppTarget(platform: .ios, appStoreID: "1234567890")] }
        #expect(try good.validated(.pushed, now: now).apps.first?.appStoreID == "1234567890")
    }

    /// A broken value is named in the problem, but only its first 200 bytes: problems are
    /// shown in answers and reports.
    @Test func aProblemQuotesTheValueShort() {
        let bad = item { $0.apps = [AppTarget(platform: .ios, bundleID: String(repeating: "b ", count: 5_000))] }
        let problem = #expect(throws: SearchableItem.Problem.self) { try bad.validated(.pushed, now: now) }
        #expect(problem?.field == "apps[0].bundleId" && problem?.value?.utf8.count == 200)
    }
}
