import FoundationEssentials
import JSON
import WebURL

/// The ways into the item contract from outside: a pushed item read and judged, a stored one
/// restored, and the one check of an item's URLs (WHATWG's URL Standard, through ``WebURL``).
extension SearchableItem {
    /// Reads one pushed item and holds it to the item contract (``validated(_:now:)``):
    /// items without `expirationDate` expire ``defaultLifetime`` after `now`. Reading only
    /// parses (types, unknown and repeated members, dates, both coordinates or neither);
    /// every limit and value rule is the contract's, whose problem is given at its path.
    public static func pushed(_ value: JSONValue, path: String = "item", owner: String? = nil, now: Date = Date()) throws(FieldError) -> ValidItem {
        let reader = try FieldReader(value: value, path: path)
        let item = try SearchableItem(reading: reader, owner: owner, now: now)
        do {
            return try item.validated(.pushed, now: now)
        } catch {
            throw FieldError(path: reader.path + "." + error.field, error.message)
        }
    }

    /// Why a URL is not one an item may hold.
    public struct URLProblem: Error, Sendable {
        public var message: String
    }

    /// `text` as an absolute http(s) URL in normal form, at most ``Limits/urlBytes`` long and
    /// without user information; the one check every item URL passes.
    public static func acceptableURL(_ text: String) -> Result<String, URLProblem> {
        guard let url = WebURL(text), url.string.utf8.count <= Limits.urlBytes else { return .failure(URLProblem(message: "not an absolute http(s) URL")) }
        guard !url.hasUserInfo else {
            return .failure(URLProblem(message: "a URL with a user name or password (user@host) is not accepted"))
        }
        return .success(url.string)
    }

    /// An item another store wrote (``storedJSON``) read back for this one: owned by
    /// `owner`, held to the contract as a restored item (``Policy/restored``: a field a newer
    /// rule refuses is cleaned or left out). Nil when it does not read or cannot be kept at
    /// all (no identifier or title, an identifier over its limit).
    public static func restored(_ value: JSONValue, owner: String?, now: Date) -> ValidItem? {
        guard var item = SearchableItem(stored: value) else { return nil }
        item.owner = owner
        return try? item.validated(.restored, now: now)
    }
}
