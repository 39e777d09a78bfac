import Items
import ServiceAPI
import StoreSeams
import TextUtilities
import WebURL

/// Who may write what: a key created for the DNS domain `D` may write an item whose
/// `webURL` host is `D` or under it, or, without a `webURL`, whose `domainIdentifier` is
/// `D` reversed (`com.example` for `example.com`) or starts with that and a dot; an item
/// with both needs both. What a key writes belongs to its owner; items no key wrote
/// (crawled pages, items added from the command line) belong to the operator, whom no key
/// speaks for. Pure.
public enum Ownership {
    /// Whether a key for `domain` may write `item`.
    public static func allows(_ item: SearchableItem, forDomain domain: String) -> Bool {
        if let identifier = item.domainIdentifier, !allows(domainIdentifier: identifier, forDomain: domain) { return false }
        if let webURL = item.webURL {
            guard let url = WebURL(webURL), !url.hasUserInfo else { return false }
            return isHost(url.host, within: domain)
        }
        return item.domainIdentifier != nil
    }

    /// Whether a key for `domain` may act on the reverse-DNS `domainIdentifier`. Domain
    /// identifiers compare exactly, as deletions match them, and keys' domains are stored in
    /// lower case: `Com.Example` is not under `example.com`.
    public static func allows(domainIdentifier: String, forDomain domain: String) -> Bool {
        let own = reversedDomain(domain)
        return domainIdentifier == own || domainIdentifier.hasPrefix(own + ".")
    }

    /// `example.com` → `com.example`.
    public static func reversedDomain(_ domain: String) -> String {
        ReverseDNS.name(forHost: domain.lowercased())
    }

    /// Engagement counts only from the item's owner, or for a page on the key's domain.
    public static func mayReportEngagement(on item: SearchableItem, key: APIKey) -> Bool {
        if let owner = item.owner, owner == key.owner { return true }
        guard let webURL = item.webURL, let url = WebURL(webURL) else { return false }
        return isHost(url.host, within: key.domain)
    }

    /// An owner name a key may carry: 1–64 letters, digits, `-`, `_` and `.`. No `/`, so
    /// `owner/batch` names stay unambiguous, and nothing a crawled item could claim.
    public static func isValidOwner(_ owner: String) -> Bool {
        (1...64).contains(owner.utf8.count)
            && owner.utf8.allSatisfy { $0.isASCIIAlphanumeric || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") }
    }

    /// `host` is `domain` or a subdomain of it (`www.example.com` within `example.com`,
    /// not `badexample.com`).
    public static func isHost(_ host: String, within domain: String) -> Bool {
        let host = host.lowercased()
        let domain = domain.lowercased()
        return host == domain || host.hasSuffix("." + domain)
    }

    /// A DNS domain a key may be created for: letters, digits, hyphens and dots, with at
    /// least one dot and no empty label.
    public static func isValidDomain(_ domain: String) -> Bool {
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, domain.utf8.count <= 253 else { return false }
        return labels.allSatisfy { label in
            !label.isEmpty && label.utf8.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.utf8.allSatisfy { $0.isASCIIAlphanumeric || $0 == UInt8(ascii: "-") }
        }
    }
}

extension UInt8 {
    var isASCIIAlphanumeric: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
    }
}
