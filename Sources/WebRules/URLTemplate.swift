import WebURL

/// The shape of a URL with its variable parts taken out, so that the URLs one page
/// template serves share one key: `/calendar/day/17` and `/calendar/day/9001` are both
/// `/calendar/day/{n}`, `/e/3f9a0c12d4` is `/e/{hex}`, `?date=2026-12-17&view=week` is
/// `?date={n}-{n}-{n}&view=week`. Runs of digits become `{n}`; a path segment or query value
/// that is a UUID or at least eight hex digits with a digit among them becomes `{uuid}` or
/// `{hex}`; query parameters are sorted by name. The crawl's URL-pattern budget counts
/// fetches and their yield per template.
public struct URLTemplate: Hashable, Sendable, CustomStringConvertible {
    /// The origin and the templated path and query.
    public let text: String
    /// Whether anything was replaced: a URL without variable parts is a template of one.
    public let isVariable: Bool

    /// Templates longer than this are cut (URLs longer than ``URLTrap/maximumLength`` are
    /// never followed in the first place).
    public static let maximumLength = 512

    public init(_ url: WebURL) {
        var variable = false
        var path = ""
        for segment in url.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            path += "/" + Self.shape(segment, variable: &variable)
        }
        var text = url.origin + (path.isEmpty ? "/" : path)
        if let query = url.query, !query.isEmpty {
            let parameters = query.split(separator: "&").map { pair -> String in
                guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
                return String(pair[..<equals]) + "=" + Self.shape(pair[pair.index(after: equals)...], variable: &variable)
            }
            text += "?" + parameters.sorted().joined(separator: "&")
        }
        self.text = text.utf8.count > Self.maximumLength ? String(decoding: text.utf8.prefix(Self.maximumLength), as: UTF8.self) : text
        isVariable = variable
    }

    public var description: String { text }

    /// One path segment or query value with its variable parts replaced.
    static func shape(_ part: Substring, variable: inout Bool) -> String {
        let bytes = Array(part.utf8)
        if isUUID(bytes) {
            variable = true
            return "{uuid}"
        }
        if bytes.count >= 8, bytes.allSatisfy(isHexDigit), bytes.contains(where: isDigit), bytes.contains(where: { !isDigit($0) }) {
            variable = true
            return "{hex}"
        }
        var shaped: [UInt8] = []
        shaped.reserveCapacity(bytes.count)
        var inDigits = false
        for byte in bytes {
            if isDigit(byte) {
                if !inDigits { shaped += Array("{n}".utf8) }
                inDigits = true
                variable = true
            } else {
                shaped.append(byte)
                inDigits = false
            }
        }
        return String(decoding: shaped, as: UTF8.self)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F"))
    }

    /// 8-4-4-4-12 hex digits.
    private static func isUUID(_ bytes: [UInt8]) -> Bool {
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                guard byte == UInt8(ascii: "-") else { return false }
            } else if !isHexDigit(byte) {
                return false
            }
        }
        return true
    }
}
