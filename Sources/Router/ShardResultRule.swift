import Foundation
import Items
import JSON
import SearchModel
import TextUtilities

/// A shard's result held to the item rules before the router shows it. A node's answer
/// goes to every client of the router, so a faulty or compromised node must not put there
/// what no index would hold: a `javascript:` action, a tap that opens a URL the item does
/// not have, an over-long title, a control character. The result is read as a hit, its item
/// checked by the item contract (``SearchableItem/validated(_:now:)``, refusing rather than
/// cleaning: the same rules an index's items passed, its apps' identifiers and names among
/// them), its tap checked against the item's own links, and written again from the typed
/// values, so fields no index writes do not pass either. Pure.
enum ShardResultRule {
    /// A snippet is 16 tokens and an ellipsis; this leaves room for long words.
    static let snippetBytes = 4096

    /// What a result may be shown as, or nil when it breaks a rule.
    static func checked(_ json: JSONValue, now: Date) -> SearchHit? {
        guard json.objectValue != nil else { return nil }
        var hit = SearchHit(json: json)
        guard let item = try? hit.item.validated(.relayed, now: now).item else { return nil }
        guard hit.score.isFinite else { return nil }
        if let action = hit.action, !isAcceptable(action, of: item) { return nil }
        if let snippet = hit.snippet {
            guard snippet.utf8.count <= snippetBytes, !snippet.unicodeScalars.contains(where: isForbidden) else { return nil }
        }
        hit.item = item
        return hit
    }

    /// A tap opens one of the item's own links: an app's deep link (or, for a universal
    /// link, the web page), the web page, or an app's store page.
    static func isAcceptable(_ action: TapAction, of item: SearchableItem) -> Bool {
        guard let url = action.url else { return action.kind != .openApp }
        switch action.kind {
        case .openApp: return item.apps.contains { $0.deepLink == url || ($0.isUniversalLink && item.webURL == url) }
        case .openWeb: return item.webURL == url
        case .installApp: return item.apps.contains { $0.installURL == url }
        }
    }

    /// Controls other than the snippet's own highlight markers (``SearchHit`` marks its
    /// matches with U+0002 and U+0003 when it reads them back).
    private static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        TerminalText.isControl(scalar) && scalar != "\u{2}" && scalar != "\u{3}" && scalar != "\n"
    }
}
