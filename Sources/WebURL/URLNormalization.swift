import TextUtilities

/// The byte-level rules behind ``WebURL``'s normal form: the URL Standard's serialization
/// (``URLParser``), with two rewrites of our own so that equal resources compare equal —
/// percent-escapes in upper case (`%c3%a9` → `%C3%A9`), and escapes of unreserved
/// characters decoded (`%41` → `A`, `%7E` → `~`). Nothing else differs from what a browser
/// makes of the same link.
enum URLNormalization {
    enum ComponentKind {
        case path, query, fragment

        /// The percent-encode set the Standard uses for the component of a special URL.
        var encodeSet: PercentEncodeSet {
            switch self {
            case .path: .path
            case .query: .specialQuery
            case .fragment: .fragment
            }
        }
    }

    @inline(__always)
    static func isUnreserved(_ c: UInt8) -> Bool { Unreserved.contains(c) }

    /// Bytes a component in normal form holds as they are: everything outside the
    /// component's percent-encode set but `%` (checked separately), and, in a path, not `\`
    /// (which the parser reads as `/`).
    @inline(__always)
    static func isAllowed(_ c: UInt8, in kind: ComponentKind) -> Bool {
        if c == UInt8(ascii: "%") || kind.encodeSet.contains(c) { return false }
        return kind != .path || c != UInt8(ascii: "\\")
    }

    private static let upperHex = Array("0123456789ABCDEF".utf8)

    /// Rewrites one component as the parser would leave it and then as our normal form
    /// has it: bytes of the component's percent-encode set encoded, escapes folded.
    static func normalizeComponent(_ component: some StringProtocol, kind: ComponentKind) -> String {
        var encoded: [UInt8] = []
        encoded.reserveCapacity(component.utf8.count)
        for c in component.utf8 { kind.encodeSet.append(c, to: &encoded) }
        var out: [UInt8] = []
        out.reserveCapacity(encoded.count)
        foldEscapes(encoded[...], to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Copies `bytes` with each `%XX` escape in upper case, or decoded when it stands for an
    /// unreserved character. A `%` that starts no escape stays as it is.
    static func foldEscapes(_ bytes: ArraySlice<UInt8>, to out: inout [UInt8]) {
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let c = bytes[i]
            if c == UInt8(ascii: "%"), i + 2 < bytes.endIndex, let hi = PercentDecoding.hexValue(bytes[i + 1]), let lo = PercentDecoding.hexValue(bytes[i + 2]) {
                let decoded = hi << 4 | lo
                if isUnreserved(decoded) {
                    out.append(decoded)
                } else {
                    out.append(c)
                    out.append(upperHex[Int(hi)])
                    out.append(upperHex[Int(lo)])
                }
                i += 3
                continue
            }
            out.append(c)
            i += 1
        }
    }

    /// A serialized URL (``URLParser/Record/serialized()``) in our normal form: escapes
    /// folded after the authority.
    static func normalForm(_ serialized: [UInt8]) -> [UInt8] {
        let authority = serialized.starts(with: "https://".utf8) ? 8 : 7
        guard let pathStart = serialized[authority...].firstIndex(of: UInt8(ascii: "/")),
            serialized[pathStart...].contains(UInt8(ascii: "%"))
        else { return serialized }
        var out = Array(serialized[..<pathStart])
        out.reserveCapacity(serialized.count)
        foldEscapes(serialized[pathStart...], to: &out)
        return out
    }

    /// Where the query and fragment of a canonical absolute path start (offsets of `?` and `#`).
    struct PathLayout {
        var queryStart: Int?
        var fragmentStart: Int?
    }

    /// The layout of `reference` when it is an absolute path (`/…`, not `//…`) already in
    /// normal form with no dot segments, so that resolving it is plain concatenation with
    /// the base's origin; nil otherwise. This keeps the parser out of the per-link hot path
    /// for the common case; the test suite checks that both routes agree.
    static func canonicalAbsolutePathLayout(_ reference: UnsafeBufferPointer<UInt8>) -> PathLayout? {
        let count = reference.count
        guard count >= 1, reference[0] == UInt8(ascii: "/"), count == 1 || reference[1] != UInt8(ascii: "/") else {
            return nil
        }
        var layout = PathLayout()
        var kind = ComponentKind.path
        var segmentStart = 1
        var i = 1
        while i <= count {
            let c: UInt8 = i < count ? reference[i] : UInt8(ascii: "?")
            if kind == .path, c == UInt8(ascii: "/") || c == UInt8(ascii: "?") || c == UInt8(ascii: "#") {
                // The segment just ended: "." and ".." need dot-segment removal.
                let length = i - segmentStart
                if length == 1, reference[segmentStart] == UInt8(ascii: ".") { return nil }
                if length == 2, reference[segmentStart] == UInt8(ascii: "."), reference[segmentStart + 1] == UInt8(ascii: ".") {
                    return nil
                }
                segmentStart = i + 1
                if i == count { break }
                if c == UInt8(ascii: "?") {
                    kind = .query
                    layout.queryStart = i
                } else if c == UInt8(ascii: "#") {
                    kind = .fragment
                    layout.fragmentStart = i
                }
                i += 1
                continue
            }
            if i == count { break }
            if c == UInt8(ascii: "#") {
                guard kind != .fragment else { return nil }
                kind = .fragment
                layout.fragmentStart = i
            } else if c == UInt8(ascii: "%") {
                guard i + 2 < count, let hi = PercentDecoding.hexValue(reference[i + 1]), let lo = PercentDecoding.hexValue(reference[i + 2]),
                    reference[i + 1] < UInt8(ascii: "a"), reference[i + 2] < UInt8(ascii: "a"), !isUnreserved(hi << 4 | lo)
                else { return nil }
                i += 2
            } else if !isAllowed(c, in: kind) {
                return nil
            }
            i += 1
        }
        return layout
    }

    /// The layout of an absolute URL that is already in normal form: `http://` or `https://`,
    /// a lower-case ASCII host name (letters, digits, `-`, `.`, its last label starting with
    /// a letter, so no IP address in any of its forms, and no `xn--` label), an optional
    /// non-default port, then nothing or a canonical absolute path. Nil for anything else,
    /// which then goes through the parser.
    static func canonicalAbsoluteURLLayout(_ url: UnsafeBufferPointer<UInt8>) -> AbsoluteLayout? {
        let https: Bool
        var i: Int
        if url.starts(with: "https://".utf8) {
            https = true
            i = 8
        } else if url.starts(with: "http://".utf8) {
            https = false
            i = 7
        } else {
            return nil
        }
        let hostStart = i
        var labelStart = i
        while i < url.count {
            let c = url[i]
            if c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z") || c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") || c == UInt8(ascii: "-") {
                // An `xn--` label is punycode the parser must check.
                if c == UInt8(ascii: "-"), i - labelStart == 3, url[labelStart] == UInt8(ascii: "x"), url[labelStart + 1] == UInt8(ascii: "n"),
                    url[labelStart + 2] == UInt8(ascii: "-")
                {
                    return nil
                }
                i += 1
            } else if c == UInt8(ascii: ".") {
                i += 1
                labelStart = i
            } else {
                break
            }
        }
        let hostEnd = i
        guard hostEnd > hostStart, labelStart < hostEnd, url[labelStart] >= UInt8(ascii: "a"), url[labelStart] <= UInt8(ascii: "z"),
            url[hostEnd - 1] != UInt8(ascii: "-")
        else { return nil }
        if i < url.count, url[i] == UInt8(ascii: ":") {
            i += 1
            let portStart = i
            var port = 0
            while i < url.count, url[i] >= UInt8(ascii: "0"), url[i] <= UInt8(ascii: "9"), i - portStart < 5 {
                port = port * 10 + Int(url[i] - UInt8(ascii: "0"))
                i += 1
            }
            guard i > portStart, url[portStart] != UInt8(ascii: "0"), port <= 65535, port != (https ? 443 : 80) else { return nil }
        }
        let pathStart = i
        if pathStart == url.count {
            return AbsoluteLayout(hostRange: hostStart..<hostEnd, pathStart: pathStart, path: PathLayout(), needsRootPath: true)
        }
        guard let path = canonicalAbsolutePathLayout(UnsafeBufferPointer(rebasing: url[pathStart...])) else { return nil }
        return AbsoluteLayout(hostRange: hostStart..<hostEnd, pathStart: pathStart, path: path, needsRootPath: false)
    }

    struct AbsoluteLayout {
        var hostRange: Range<Int>
        var pathStart: Int
        /// Query and fragment offsets relative to `pathStart`.
        var path: PathLayout
        /// The URL ends after the authority; its normal form adds `/`.
        var needsRootPath: Bool
    }
}

/// The percent-encoding normal form ``WebURL`` uses, for text compared with URL paths
/// (robots.txt patterns, association-file patterns): what the parser encodes in a path
/// (and, after a `?`, in a query) encoded, escapes in upper case, escapes of unreserved
/// characters decoded.
public enum PercentEncoding {
    public static func normalized(_ text: String) -> String {
        guard let question = text.firstIndex(of: "?") else { return URLNormalization.normalizeComponent(text, kind: .path) }
        return URLNormalization.normalizeComponent(text[..<question], kind: .path) + "?"
            + URLNormalization.normalizeComponent(text[text.index(after: question)...], kind: .query)
    }
}
