import Glibc
import TextUtilities
import WebURL

/// A link from the page to another web page: `<a href>`, `<area href>` or
/// `<link rel=next|prev|alternate>`, resolved against the page's base URL, without its
/// fragment.
public struct Outlink: Sendable, Hashable {
    public var url: WebURL
    /// The anchor text, whitespace collapsed and bounded; `alt` text for an `<area>`.
    public var text: String
    public var rel: Rel
    public var element: Element

    public init(url: WebURL, text: String = "", rel: Rel = [], element: Element = .anchor) {
        self.url = url
        self.text = text
        self.rel = rel
        self.element = element
    }

    public enum Element: String, Sendable, Hashable {
        case anchor = "a"
        case area
        case linkNext = "link-next"
        case linkPrev = "link-prev"
        case linkAlternate = "link-alternate"
    }

    /// The `rel` tokens that say the site does not vouch for the link.
    public struct Rel: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let nofollow = Rel(rawValue: 1)
        public static let ugc = Rel(rawValue: 2)
        public static let sponsored = Rel(rawValue: 4)

        /// Reads the relevant tokens of a `rel` attribute value.
        public init(attribute: String) {
            var attribute = attribute
            self = attribute.withUTF8 { Rel(tokens: $0) }
        }

        /// Reads the relevant tokens of a NUL-terminated `rel` value, as the parser hands it over.
        init(attribute: UnsafePointer<UInt8>) {
            self.init(tokens: UnsafeBufferPointer(start: attribute, count: strlen(attribute)))
        }

        private init(tokens bytes: UnsafeBufferPointer<UInt8>) {
            self = []
            var start = 0
            for end in 0...bytes.count where end == bytes.count || isASCIIWhitespace(bytes[end]) {
                defer { start = end + 1 }
                let token = UnsafeBufferPointer(rebasing: bytes[start..<end])
                if Self.equalsIgnoringCase(token, "nofollow") { insert(.nofollow) }
                else if Self.equalsIgnoringCase(token, "ugc") { insert(.ugc) }
                else if Self.equalsIgnoringCase(token, "sponsored") { insert(.sponsored) }
            }
        }

        private static func equalsIgnoringCase(_ token: UnsafeBufferPointer<UInt8>, _ word: StaticString) -> Bool {
            guard token.count == word.utf8CodeUnitCount else { return false }
            for i in 0..<token.count where token[i] | 0x20 != word.utf8Start[i] { return false }
            return true
        }

        public var names: [String] {
            [(Rel.nofollow, "nofollow"), (.ugc, "ugc"), (.sponsored, "sponsored")].filter { contains($0.0) }.map(\.1)
        }
    }
}

/// An icon the page declares (`<link rel="icon">`, `apple-touch-icon`…).
public struct PageIcon: Sendable, Hashable {
    /// The `rel` value, lower case (`icon`, `shortcut icon`, `apple-touch-icon`…).
    public var rel: String
    public var url: WebURL
    public var sizes: String?
    public var type: String?

    public var isAppleTouchIcon: Bool { rel.contains("apple-touch-icon") }

    /// The largest side given in `sizes` (`180x180` → 180), 0 when unknown.
    public var largestSide: Int {
        (sizes ?? "").lowercased().split(separator: " ").compactMap { $0.split(separator: "x").first.flatMap { Int($0) } }.max() ?? 0
    }
}

/// `<link rel="alternate" hreflang="…" href="…">`: the same page in another language.
public struct HreflangAlternate: Sendable, Hashable {
    public var hreflang: String
    public var url: WebURL
}
