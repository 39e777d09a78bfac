@testable import Markup
import Testing

/// The class/id word automaton against the rule it implements, written the slow way: a
/// word of the "anywhere" lists found anywhere in the lower-cased value, a short word found
/// between non-letters.
@Suite struct HintWordsTests {
    static let anywhere: [(HintWords.Found, [StaticString])] = [
        (.comments, ["comment", "disqus"]),
        (.negative, ["menu", "sidebar", "side-bar", "share", "sharing", "you-may-also"]),
        (.positive, ["article", "content", "entry", "post-body"]),
    ]
    static let whole: [StaticString] = ["nav", "ad", "header"]
    static let words = HintWords(anywhere: anywhere, negativeWords: whole)

    static func expected(_ value: String) -> HintWords.Found {
        let lower = value.lowercased()
        var found: HintWords.Found = []
        for (kind, list) in anywhere where list.contains(where: { lower.contains("\($0)") }) { found.insert(kind) }
        let tokens = lower.split(whereSeparator: { !("a"..."z").contains($0) }).map(String.init)
        if tokens.contains(where: { token in whole.contains { "\($0)" == token } }) { found.insert(.negative) }
        return found
    }

    static func scan(_ value: String, with words: HintWords = words) -> HintWords.Found {
        var found: HintWords.Found = []
        var budget = 10_000
        value.withCString { $0.withMemoryRebound(to: UInt8.self, capacity: value.utf8.count + 1) { words.scan($0, budget: &budget, into: &found) } }
        return found
    }

    @Test func examples() {
        #expect(Self.scan("site-footer main-nav") == .negative)
        #expect(Self.scan("canvas") == [])
        #expect(Self.scan("SidebarLeft") == .negative)
        #expect(Self.scan("content-sidebar-wrap") == [.negative, .positive])
        #expect(Self.scan("ad") == .negative)
        #expect(Self.scan("shadow") == [], "ad inside a word is not the word")
        #expect(Self.scan("comments-area") == .comments)
        #expect(Self.scan("sidebasidebar") == .negative, "a failed partial match falls back, not to the root")
    }

    /// A word joined to `label` by hyphens is about a label: Drupal's `field--label-hidden`
    /// hides a field's label, not its text.
    @Test func aWordAfterLabelIsAboutTheLabel() {
        #expect(Self.scan("field--label-header") == [])
        #expect(Self.scan("label--header") == [])
        #expect(Self.scan("label header") == .negative, "a separate word is the element's")
        #expect(Self.scan("header-label") == .negative)
        #expect(Self.scan("field--label-inline nav") == .negative)
        #expect(Self.scan("field field--name-body field--type-text-with-summary field--label-hidden", with: .shared) == [])
        #expect(Self.scan("hidden", with: .shared) == .negative)
    }

    /// `hidden-xs`, `hidden-phone`, `hidden-print` hide an element on some screens or on
    /// paper only: it is shown, and its text is the page's.
    @Test func hiddenOnSomeScreensIsNotHidden() {
        for value in ["recipe-tab-sec hidden-xs", "hidden-phone blog_kasten", "box hidden-print", "hidden-sm hidden-md"] {
            #expect(Self.scan(value, with: .shared) == [], "\(value)")
        }
        for value in ["hidden", "is-hidden", "hidden-block", "hidden-", "hidden-xs nav", "hidden hidden-xs"] {
            #expect(Self.scan(value, with: .shared) == .negative, "\(value)")
        }
    }

    @Test func agreesWithTheRuleOnRandomValues() {
        let pieces = ["menu", "men", "side", "bar", "-", " ", "_", "nav", "ad", "a", "d", "header", "head", "er", "you", "-may-", "also",
                      "art", "icle", "con", "tent", "disq", "us", "Comment", "SHARE", "shar", "ing", "x", "9", "é", "post", "body",
                      "entry", "en", "try"]
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next(_ bound: Int) -> Int {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Int(state % UInt64(bound))
        }
        for _ in 0..<3_000 {
            let value = (0..<(1 + next(8))).map { _ in pieces[next(pieces.count)] }.joined()
            #expect(Self.scan(value) == Self.expected(value), "\(value)")
        }
    }
}
