import SearchIndex
import WebURL

/// Who may write what: a key created for the DNS domain `D` may write an item whose
/// `webURL` host is `D` or under it, or, without a `webURL`, whose `domainIdentifier` is
/// `D` reversed (`com.example` for `example.com`) or starts with that and a dot. Pure.
public enum Ownership {
    /// Whether a key for `domain` may write `item`.
    public static func allows(_ item: SearchableItem, forDomain domain: String) -> Bool {
        if let webURL = item.webURL {
            guard let host = WebURL(webURL)?.host else { return false }
            return isHost(host, within: domain)
        }
        guard let identifier = item.domainIdentifier else { return false }
        return allows(domainIdentifier: identifier, forDomain: domain)
    }

    /// Whether a key for `domain` may act on the reverse-DNS `domainIdentifier`.
    public static func allows(domainIdentifier: String, forDomain domain: String) -> Bool {
        let own = ItemBuilder.reversedDomain(domain.lowercased())
        let identifier = domainIdentifier.lowercased()
        return identifier == own || identifier.hasPrefix(own + ".")
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
