import FoundationEssentials
import TextUtilities

/// The item contract: every rule an item in the index keeps, in one place. Each source
/// fills a ``SearchableItem`` its own way (a push's JSON, a mapped record, a crawled page,
/// an activity report) and hands it to ``validated(_:now:)``, which either returns it
/// within the rules or says which field broke which rule. The limits are ``Limits``.
extension SearchableItem {
    /// How ``validated(_:now:)`` treats what breaks a rule.
    public struct Policy: Sendable {
        public enum Text: Sendable {
            /// Over a limit, or holding a control character: an error.
            case refuse
            /// Control characters become spaces (line breaks and tabs stay in multi-line
            /// fields), surrounding whitespace goes, and the text is cut at its limit.
            case clean
        }

        public enum Invalid: Sendable {
            /// A value that breaks a rule (a URL that is not http(s), a rating off its scale): an error.
            case fail
            /// Such a value is left out (a crawled page keeps what it could give).
            case drop
        }

        public var text: Text
        public var invalid: Invalid
        /// How long an item without an `expirationDate` lives; nil: until its source removes it.
        public var lifetime: TimeInterval?

        /// An app's push (`index add`, `POST /v1/items`) and a reported activity: everything
        /// as sent, or an error; ``SearchableItem/defaultLifetime`` unless it says otherwise.
        public static let pushed = Policy(text: .refuse, invalid: .fail, lifetime: SearchableItem.defaultLifetime)
        /// A mapped record: text cleaned and cut; a value that breaks a rule skips the record.
        /// It lives as long as its record (ingest deletes it with the record).
        public static let rendered = Policy(text: .clean, invalid: .fail, lifetime: nil)
        /// A crawled page: text cleaned and cut; a value that breaks a rule is left out. Its
        /// lifetime is the crawl's `--expire-after`, set by the item builder.
        public static let crawled = Policy(text: .clean, invalid: .drop, lifetime: SearchableItem.defaultLifetime)
        /// An item as another process says an index holds it (a shard's result a router
        /// relays): within every rule as it came, or an error; no lifetime is given to it.
        public static let relayed = Policy(text: .refuse, invalid: .fail, lifetime: nil)
        /// An item another of our stores wrote, read back into this one (a node's copy of the
        /// shared store): it passed the contract of its day, so what a newer rule refuses is
        /// cleaned or left out rather than losing the item; no lifetime is given to it.
        public static let restored = Policy(text: .clean, invalid: .drop, lifetime: nil)
    }

    /// Which field broke which rule (`webURL`, `apps[0].deepLink`), with the value as given.
    public struct Problem: Error, Sendable, CustomStringConvertible {
        public enum Kind: Sendable {
            /// A required text (the identifier, the title) is empty.
            case empty
            case tooLong
            case controlCharacter
            /// A value outside its rule (a URL, a rating, a date, a tag).
            case invalid
        }

        public var kind: Kind
        public var field: String
        public var value: String?
        public var message: String

        public var description: String { field + (value.map { " '\($0)'" } ?? "") + ": " + message }
    }

    /// How long an item lives without an `expirationDate` (CoreSpotlight's default is a month too).
    public static let defaultLifetime: TimeInterval = 30 * 86_400

    /// The largest body a crawled page's item holds: its main text, cut here (the push
    /// format's `text` is ``Limits/textBytes``).
    public static let crawledTextBytes = 256 * 1024

    /// The item within every rule, or the first rule it breaks. No expiration date means
    /// the policy's lifetime from `now`. The only maker of ``ValidItem``.
    public func validated(_ policy: Policy, now: Date) throws(Problem) -> ValidItem {
        var item = self
        var failure: Problem?
        /// Records a broken rule: with `.fail` the first one is thrown, with `.drop` the
        /// caller leaves the value out. The value is kept to 200 bytes: it is shown in reports.
        func broken(_ field: String, _ value: String?, _ message: String) {
            guard policy.invalid == .fail, failure == nil else { return }
            failure = Problem(kind: .invalid, field: field, value: value.map { String(decoding: $0.utf8.prefix(200), as: UTF8.self) }, message: message)
        }
        func text(_ field: String, _ value: String, _ limit: Int, multiline: Bool = false) -> String {
            switch policy.text {
            case .clean:
                return Self.clean(value, limit: limit, multiline: multiline)
            case .refuse:
                if value.utf8.count > limit {
                    if failure == nil { failure = Problem(kind: .tooLong, field: field, value: nil, message: "at most \(limit) bytes") }
                } else if TerminalText.containsC0DELOrC1(value, allowingLineBreaks: multiline), failure == nil {
                    failure = Problem(kind: .controlCharacter, field: field, value: nil, message: "control characters are not allowed")
                }
                return value
            }
        }
        func optionalText(_ field: String, _ value: String?, _ limit: Int, multiline: Bool = false) -> String? {
            guard let value else { return nil }
            let result = text(field, value, limit, multiline: multiline)
            return result.isEmpty ? nil : result
        }
        func url(_ field: String, _ value: String?) -> String? {
            guard let value = optionalText(field, value, Limits.urlBytes) else { return nil }
            switch Self.acceptableURL(value) {
            case .success(let url): return url
            case .failure(let problem):
                broken(field, value, problem.message)
                return nil
            }
        }

        // An identifier is never cut: a cut one would be another item's. A crawled page's is
        // its URL, as long as a URL may be.
        let identifierLimit = source == .crawled ? Limits.urlBytes : Limits.identifierBytes
        item.uniqueIdentifier = text("uniqueIdentifier", uniqueIdentifier, .max)
        if item.uniqueIdentifier.isBlank { throw failure ?? Problem(kind: .empty, field: "uniqueIdentifier", value: nil, message: "must not be empty") }
        if item.uniqueIdentifier.utf8.count > identifierLimit {
            throw Problem(kind: .tooLong, field: "uniqueIdentifier", value: nil, message: "at most \(identifierLimit) bytes")
        }
        item.title = text("title", title, Limits.titleBytes)
        if item.title.isBlank { throw failure ?? Problem(kind: .empty, field: "title", value: nil, message: "must not be empty") }
        item.domainIdentifier = optionalText("domainIdentifier", domainIdentifier, Limits.domainIdentifierBytes)
        if let domain = item.domainIdentifier, !Self.isValidDomainIdentifier(domain) {
            broken("domainIdentifier", domain, "expected dot-separated labels of letters, digits, '-' and '_'")
            item.domainIdentifier = nil
        }
        item.contentType = optionalText("contentType", contentType, Limits.contentTypeBytes)
        item.contentDescription = optionalText("contentDescription", contentDescription, Limits.descriptionBytes, multiline: true)
        item.keywords = []
        for (index, keyword) in keywords.enumerated() {
            guard item.keywords.count < Limits.keywords else {
                broken("keywords", nil, "at most \(Limits.keywords)")
                break
            }
            if let kept = optionalText("keywords[\(index)]", keyword, Limits.keywordBytes) { item.keywords.append(kept) }
        }
        item.thumbnailURL = url("thumbnailURL", thumbnailURL)
        item.webURL = url("webURL", webURL)
        item.price = optionalText("price", price, Limits.shortTextBytes)
        item.currency = optionalText("currency", currency, Limits.shortTextBytes)
        item.telephone = optionalText("telephone", telephone, Limits.shortTextBytes)
        item.address = optionalText("address", address, Limits.addressBytes, multiline: true)
        item.bodyText = text("text", bodyText, source == .crawled ? Self.crawledTextBytes : Limits.textBytes, multiline: true)

        if !(ratingScale.isFinite && ratingScale > 0 && ratingScale <= Limits.ratingScale) {
            broken("ratingScale", String(ratingScale), "must be greater than 0 and at most \(Int(Limits.ratingScale))")
            item.ratingScale = 5
        }
        if let rating, !(rating.isFinite && (0...item.ratingScale).contains(rating)) {
            broken("rating", String(rating), "must be from 0 to the rating scale (\(item.ratingScale))")
            item.rating = nil
        }
        if let count = ratingCount, !(0...Limits.ratingCount).contains(count) {
            broken("ratingCount", String(count), "must be from 0 to \(Limits.ratingCount)")
            item.ratingCount = nil
        }
        // A count of ratings says nothing without the rating.
        if item.rating == nil { item.ratingCount = nil }

        item.apps = []
        for (index, var app) in apps.enumerated() {
            guard item.apps.count < Limits.apps else {
                broken("apps", nil, "at most \(Limits.apps)")
                break
            }
            app.name = optionalText("apps[\(index)].name", app.name, Limits.appNameBytes)
            app.deepLink = optionalText("apps[\(index)].deepLink", app.deepLink, Limits.urlBytes)
            if let link = app.deepLink, !AppTarget.isAcceptableDeepLink(link) {
                broken("apps[\(index)].deepLink", link, "expected an http(s) URL or an app's own scheme such as myapp://item/42 (not a scheme a browser or the system handles, such as javascript:, data:, file: or ms-msdt:)")
                app.deepLink = nil
            }
            if let id = app.appStoreID, AppStoreID.normalize(id) != id {
                broken("apps[\(index)].appStoreId", id, "expected the numeric App Store id (1234567890)")
                app.appStoreID = nil
            }
            if let bundle = app.bundleID, !AppTarget.isValidIdentifier(bundle) {
                broken("apps[\(index)].bundleId", bundle, "expected a reverse-DNS name such as com.example.app")
                app.bundleID = nil
            }
            if let package = app.package, !AppTarget.isValidIdentifier(package) {
                broken("apps[\(index)].package", package, "expected a reverse-DNS name such as com.example.app")
                app.package = nil
            }
            item.apps.append(app)
        }

        let latest = now.addingTimeInterval(Limits.lifetime)
        if let expiration = expirationDate, expiration > latest {
            broken("expirationDate", ISO8601.string(fromSeconds: expiration.timeIntervalSince1970), "at most ten years ahead")
            item.expirationDate = latest
        }
        if item.expirationDate == nil, let lifetime = policy.lifetime { item.expirationDate = now.addingTimeInterval(lifetime) }
        if let language, !Self.isValidLanguageTag(language) {
            broken("language", language, "expected a BCP 47 language tag such as en, fr or pt-BR")
            item.language = nil
        }
        if let location, !location.isValid {
            broken("latitude", "\(location.latitude),\(location.longitude)", "latitude must be from -90 to 90 and longitude from -180 to 180")
            item.location = nil
        }
        if let failure { throw failure }
        return ValidItem(checked: item)
    }

    /// Control characters become spaces (tab and line breaks stay where text may be
    /// multi-line), surrounding whitespace goes, and the text is cut at `limit` bytes on a
    /// scalar boundary. One pass over the bytes, whatever the text.
    public static func clean(_ text: String, limit: Int, multiline: Bool) -> String {
        if isClean(text, limit: limit, multiline: multiline) { return text }
        var text = text
        return text.withUTF8 { bytes -> String in
            var out: [UInt8] = []
            out.reserveCapacity(min(bytes.count, limit))
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                if (byte < 0x20 && !(multiline && (byte == 0x09 || byte == 0x0A || byte == 0x0D))) || byte == 0x7F {
                    out.append(0x20)
                    index += 1
                } else if byte == 0xC2, index + 1 < bytes.count, (0x80...0x9F).contains(bytes[index + 1]) {
                    out.append(0x20)
                    index += 2
                } else {
                    out.append(byte)
                    index += 1
                }
            }
            // Cut at the limit, never inside a scalar's bytes.
            if out.count > limit {
                var end = limit
                while end > 0, out[end] & 0xC0 == 0x80 { end -= 1 }
                out.removeSubrange(end...)
            }
            return String(decoding: out, as: UTF8.self).trimmingASCIIWhitespace()
        }
    }

    /// Whether `text` needs no cleaning: within the limit, no control character (C0 but the
    /// line breaks and tabs a multi-line field keeps, DEL, or C1, which UTF-8 writes as
    /// C2 80–9F), no whitespace at either end. Bytes only: the common case (a page's main
    /// text, a line per block) costs one pass, never the character-by-character rewrite.
    private static func isClean(_ text: String, limit: Int, multiline: Bool) -> Bool {
        let utf8 = text.utf8
        guard utf8.count <= limit else { return false }
        if let first = utf8.first, first == 0x20 || (0x09...0x0D).contains(first) { return false }
        if let last = utf8.last, last == 0x20 || (0x09...0x0D).contains(last) { return false }
        return !TerminalText.containsC0DELOrC1(text, allowingLineBreaks: multiline)
    }
}

extension String {
    /// Empty or only whitespace: no identifier or title at all.
    fileprivate var isBlank: Bool { utf8.allSatisfy(isASCIIWhitespace) }
}
