import TextUtilities

/// The byte-level rules behind ``WebURL``'s normal form.
enum URLNormalization {
    enum ComponentKind {
        case path, query, fragment
    }

    /// WHATWG URL parsing first strips leading and trailing C0 controls and spaces and
    /// removes every tab and newline; browsers also read `\` as `/` before the query.
    static func cleanReference(_ reference: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(reference.utf8.count)
        var seenQueryOrFragment = false
        for byte in reference.utf8 {
            if byte == 0x09 || byte == 0x0A || byte == 0x0D { continue }
            if byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { seenQueryOrFragment = true }
            bytes.append(byte == UInt8(ascii: "\\") && !seenQueryOrFragment ? UInt8(ascii: "/") : byte)
        }
        var start = 0
        var end = bytes.count
        while start < end, bytes[start] <= 0x20 { start += 1 }
        while end > start, bytes[end - 1] <= 0x20 { end -= 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    @inline(__always)
    static func isUnreserved(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
            || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: "-") || c == UInt8(ascii: ".")
            || c == UInt8(ascii: "_") || c == UInt8(ascii: "~")
    }

    /// Characters kept as they are in a path, query or fragment (RFC 3986 pchar plus `/`
    /// and `?`, without `%`, which is checked separately).
    @inline(__always)
    static func isAllowed(_ c: UInt8, in kind: ComponentKind) -> Bool {
        if isUnreserved(c) { return true }
        switch c {
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
            UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "/"):
            return true
        case UInt8(ascii: "?"):
            return kind != .path
        default:
            return false
        }
    }

    private static let upperHex = Array("0123456789ABCDEF".utf8)

    /// Rewrites one component: escapes in upper case, escapes of unreserved characters
    /// decoded, disallowed bytes (and a `%` that starts no escape) percent-encoded.
    static func normalizeComponent(_ component: some StringProtocol, kind: ComponentKind) -> String {
        let bytes = Array(component.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        appendNormalized(bytes[...], kind: kind, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static func appendNormalized(_ bytes: ArraySlice<UInt8>, kind: ComponentKind, to out: inout [UInt8]) {
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
            if isAllowed(c, in: kind) {
                out.append(c)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(upperHex[Int(c >> 4)])
                out.append(upperHex[Int(c & 0xF)])
            }
            i += 1
        }
    }

    /// Normalises the path, query and fragment of a URL libcurl produced (its scheme and
    /// host are already in lower case).
    static func normalizeCurlOutput(_ url: String) -> String {
        let bytes = Array(url.utf8)
        guard let schemeEnd = bytes.firstIndex(of: UInt8(ascii: ":")) else { return url }
        var pathStart = schemeEnd + 3
        while pathStart < bytes.count, bytes[pathStart] != UInt8(ascii: "/"), bytes[pathStart] != UInt8(ascii: "?"),
            bytes[pathStart] != UInt8(ascii: "#")
        {
            pathStart += 1
        }
        var out = Array(bytes[0..<pathStart])
        out.reserveCapacity(bytes.count + 8)
        let fragmentStart = bytes[pathStart...].firstIndex(of: UInt8(ascii: "#")) ?? bytes.count
        let queryStart = bytes[pathStart..<fragmentStart].firstIndex(of: UInt8(ascii: "?")) ?? fragmentStart
        if pathStart == queryStart { out.append(UInt8(ascii: "/")) }
        appendNormalized(bytes[pathStart..<queryStart], kind: .path, to: &out)
        if queryStart < fragmentStart {
            out.append(UInt8(ascii: "?"))
            appendNormalized(bytes[(queryStart + 1)..<fragmentStart], kind: .query, to: &out)
        }
        if fragmentStart < bytes.count {
            out.append(UInt8(ascii: "#"))
            appendNormalized(bytes[(fragmentStart + 1)...], kind: .fragment, to: &out)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Where the query and fragment of a canonical absolute path start (offsets of `?` and `#`).
    struct PathLayout {
        var queryStart: Int?
        var fragmentStart: Int?
    }

    /// The layout of `reference` when it is an absolute path (`/…`, not `//…`) already in
    /// normal form with no dot segments, so that resolving it is plain concatenation with
    /// the base's origin; nil otherwise. This keeps libcurl out of the per-link hot path
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
    /// a letter, so no IP address in any of the forms libcurl rewrites), an optional
    /// non-default port, then nothing or a canonical absolute path. Nil for anything else,
    /// which then goes through libcurl.
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
/// (robots.txt patterns, association-file patterns): escapes in upper case, escapes of
/// unreserved characters decoded, characters a URL may not hold encoded. `/` and `?`
/// stay as they are.
public enum PercentEncoding {
    public static func normalized(_ text: String) -> String {
        URLNormalization.normalizeComponent(text, kind: .query)
    }

    /// Text to put in a query value: every byte but RFC 3986's unreserved characters
    /// (`A-Z a-z 0-9 - . _ ~`) encoded, so that no `&`, `=` or `#` can end the value.
    public static func encodedQueryValue(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
            }
        }
        return out
    }

}
