import TextUtilities
/// Apple's Smart App Banner: `<meta name="apple-itunes-app" content="app-id=…, app-argument=…">`.
///
/// Tokenising follows the spec notes in `markup-specs.md` §1: pairs are split at the
/// *first* `=`, because `affiliate-data` and `app-argument` values contain `=`, `&` and `?`;
/// an `app-argument` URL may contain commas, so it runs to the next `, known-key=` or to
/// the end; a missing comma before a known key (`app-id=1 app-clip-display=card`) is
/// recovered; stray spaces are trimmed. Only the first tag on a page counts.
public struct SmartAppBanner: Sendable, Hashable {
    /// The numeric App Store id, `id` prefix removed; nil when the value is not numeric.
    public var appStoreID: String?
    /// `app-id` as written.
    public var appID: String?
    public var appArgument: String?
    public var affiliateData: String?
    public var appClipBundleID: String?
    public var appClipDisplay: String?
    /// Pairs with keys Apple does not define, in order.
    public var otherParameters: [Parameter] = []
    /// The content attribute as written.
    public var content: String

    public struct Parameter: Sendable, Hashable {
        public var key: String
        public var value: String
    }

    static let knownKeys = ["app-id", "app-argument", "affiliate-data", "app-clip-bundle-id", "app-clip-display"]

    public init(content: String) {
        self.content = content
        for (key, value) in Self.tokenize(content) {
            switch key {
            case "app-id" where appID == nil:
                appID = value
                appStoreID = AppStoreID.normalize(value)
            case "app-argument" where appArgument == nil: appArgument = value
            case "affiliate-data" where affiliateData == nil: affiliateData = value
            case "app-clip-bundle-id" where appClipBundleID == nil: appClipBundleID = value
            case "app-clip-display" where appClipDisplay == nil: appClipDisplay = value
            case _ where Self.knownKeys.contains(key): continue  // a repeated key: the first wins
            default: otherParameters.append(Parameter(key: key, value: value))
            }
        }
    }

    /// Splits `content` into (key, value) pairs as described on the type.
    static func tokenize(_ content: String) -> [(String, String)] {
        let bytes = Array(content.utf8)
        // Where each known key starts: at the beginning, or after a comma or whitespace.
        var starts: [(index: Int, key: String, valueStart: Int)] = []
        var i = 0
        while i < bytes.count {
            let atBoundary = i == 0 || bytes[i - 1] == UInt8(ascii: ",") || isASCIIWhitespace(bytes[i - 1])
            if atBoundary, let (key, valueStart) = knownKey(at: i, in: bytes) {
                starts.append((i, key, valueStart))
                i = valueStart
                continue
            }
            i += 1
        }
        var pairs: [(String, String)] = []
        // Text before the first known key holds only unknown pairs.
        appendUnknownPairs(trimmed(bytes[0..<(starts.first?.index ?? bytes.count)]), to: &pairs)
        for (n, start) in starts.enumerated() {
            let end = n + 1 < starts.count ? starts[n + 1].index : bytes.count
            let raw = bytes[start.valueStart..<end]
            if start.key == "app-argument" {
                pairs.append((start.key, trimmed(raw)))
            } else if let comma = raw.firstIndex(of: UInt8(ascii: ",")) {
                pairs.append((start.key, trimmed(raw[..<comma])))
                appendUnknownPairs(trimmed(raw[(comma + 1)...]), to: &pairs)
            } else {
                pairs.append((start.key, trimmed(raw)))
            }
        }
        return pairs
    }

    /// The bytes as a string without surrounding whitespace and trailing commas.
    private static func trimmed(_ slice: ArraySlice<UInt8>) -> String {
        var lower = slice.startIndex
        var upper = slice.endIndex
        while lower < upper, isASCIIWhitespace(slice[lower]) { lower += 1 }
        while upper > lower, isASCIIWhitespace(slice[upper - 1]) || slice[upper - 1] == UInt8(ascii: ",") { upper -= 1 }
        return String(decoding: slice[lower..<upper], as: UTF8.self)
    }

    private static let knownKeyBytes = knownKeys.map { Array($0.utf8) }

    private static func knownKey(at i: Int, in bytes: [UInt8]) -> (String, Int)? {
        for (k, key) in knownKeyBytes.enumerated() {
            guard i + key.count <= bytes.count else { continue }
            var matched = true
            for (j, byte) in key.enumerated() where bytes[i + j] | 0x20 != byte | 0x20 {
                matched = false
                break
            }
            guard matched else { continue }
            var j = i + key.count
            while j < bytes.count, bytes[j] == 0x20 || bytes[j] == 0x09 { j += 1 }
            guard j < bytes.count, bytes[j] == UInt8(ascii: "=") else { continue }
            return (knownKeys[k], j + 1)
        }
        return nil
    }

    private static func appendUnknownPairs(_ text: String, to pairs: inout [(String, String)]) {
        for item in text.split(separator: ",") {
            // Empty sides are kept: `=value` has an empty key (and is dropped), `=` too.
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = parts[0].trimmingASCIIWhitespace().lowercased()
            guard !key.isEmpty else { continue }
            pairs.append((key, parts.count > 1 ? parts[1].trimmingASCIIWhitespace() : ""))
        }
    }
}
