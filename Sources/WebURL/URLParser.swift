/// The URL Standard's basic URL parser (§4.4), for the two schemes a crawler follows:
/// `http` and `https`, against an http(s) base or none. Its states are the Standard's,
/// in its order, minus the ones only other schemes reach (`file`, opaque paths, state
/// overrides). Input whose scheme is anything else (`mailto:`, `javascript:`, `ftp:`…)
/// gives nil, as does every input the Standard fails.
/// <https://url.spec.whatwg.org/#concept-basic-url-parser>
///
/// Queries are percent-encoded as UTF-8 (the Standard uses the document's encoding; pages
/// reach the parser already converted to UTF-8).
enum URLParser {
    /// A parsed http(s) URL, its parts serialized as the Standard serializes them.
    struct Record: Sendable {
        var https: Bool
        var username: [UInt8] = []
        var password: [UInt8] = []
        var host: [UInt8] = []
        var port: UInt16?
        /// The path as serialized: `/` before each segment.
        var path: [UInt8] = []
        var query: [UInt8]?
        var fragment: [UInt8]?

        var defaultPort: UInt16 { https ? 443 : 80 }

        /// The base's username, password, host and port, as the relative states take them.
        mutating func takeAuthority(of base: Record) {
            username = base.username
            password = base.password
            host = base.host
            port = base.port
        }

        /// "shorten a url's path": drop the last segment.
        mutating func shortenPath() {
            guard let slash = path.lastIndex(of: UInt8(ascii: "/")) else { return }
            path.removeSubrange(slash...)
        }

        /// The URL serializer (§4.5).
        func serialized() -> [UInt8] {
            var out: [UInt8] = Array((https ? "https://" : "http://").utf8)
            out.reserveCapacity(out.count + host.count + path.count + (query?.count ?? 0) + (fragment?.count ?? 0) + 16)
            if !username.isEmpty || !password.isEmpty {
                out += username
                if !password.isEmpty {
                    out.append(UInt8(ascii: ":"))
                    out += password
                }
                out.append(UInt8(ascii: "@"))
            }
            out += host
            if let port {
                out.append(UInt8(ascii: ":"))
                out += Array(String(port).utf8)
            }
            out += path
            if let query {
                out.append(UInt8(ascii: "?"))
                out += query
            }
            if let fragment {
                out.append(UInt8(ascii: "#"))
                out += fragment
            }
            return out
        }
    }

    private enum State {
        case schemeStart, scheme, noScheme, specialRelativeOrAuthority, relative, relativeSlash
        case specialAuthoritySlashes, specialAuthorityIgnoreSlashes, authority, host, port, pathStart, path, query, fragment
    }

    /// Parses `input` (UTF-8) against `base`.
    static func parse(_ input: some Collection<UInt8>, base: Record?) -> Record? {
        // Leading and trailing C0 controls and spaces go; so does every tab and newline.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(input.count)
        for c in input where c != 0x09 && c != 0x0A && c != 0x0D { bytes.append(c) }
        var start = 0
        var end = bytes.count
        while start < end, bytes[start] <= 0x20 { start += 1 }
        while end > start, bytes[end - 1] <= 0x20 { end -= 1 }
        if start > 0 || end < bytes.count { bytes = Array(bytes[start..<end]) }
        return bytes.withUnsafeBufferPointer { run($0, base: base) }
    }

    private static func isAlpha(_ c: UInt8) -> Bool { (c | 0x20) >= UInt8(ascii: "a") && (c | 0x20) <= UInt8(ascii: "z") }
    private static func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }

    /// `.` or `%2e`, case-insensitively.
    private static func isSingleDot(_ s: ArraySlice<UInt8>) -> Bool {
        s.elementsEqual([UInt8(ascii: ".")]) || (s.count == 3 && s.first == UInt8(ascii: "%") && s.dropFirst().elementsEqual([0x32, 0x65], by: { $0 | 0x20 == $1 }))
    }

    /// `..`, `.%2e`, `%2e.` or `%2e%2e`, case-insensitively.
    private static func isDoubleDot(_ s: ArraySlice<UInt8>) -> Bool {
        switch s.count {
        case 2: return s.elementsEqual("..".utf8)
        case 4: return isSingleDot(s.prefix(1)) && isSingleDot(s.suffix(3)) || isSingleDot(s.prefix(3)) && isSingleDot(s.suffix(1))
        case 6: return isSingleDot(s.prefix(3)) && isSingleDot(s.suffix(3))
        default: return false
        }
    }

    private static func run(_ bytes: UnsafeBufferPointer<UInt8>, base: Record?) -> Record? {
        var url = Record(https: false)
        var state = State.schemeStart
        var buffer: [UInt8] = []
        var atSignSeen = false
        var insideBrackets = false
        var passwordTokenSeen = false
        var pointer = 0
        let slash = UInt8(ascii: "/"), backslash = UInt8(ascii: "\\")
        func remaining(_ offset: Int) -> UInt8? { pointer + offset < bytes.count ? bytes[pointer + offset] : nil }

        while true {
            let c: UInt8? = pointer < bytes.count ? bytes[pointer] : nil
            switch state {
            case .schemeStart:
                if let c, isAlpha(c) {
                    buffer.append(c | 0x20)
                    state = .scheme
                } else {
                    state = .noScheme
                    pointer -= 1
                }
            case .scheme:
                if let c, isAlpha(c) || isDigit(c) || c == UInt8(ascii: "+") || c == UInt8(ascii: "-") || c == UInt8(ascii: ".") {
                    buffer.append(isAlpha(c) ? c | 0x20 : c)
                } else if c == UInt8(ascii: ":") {
                    // Only http and https are followed; every other scheme is not ours.
                    guard buffer.elementsEqual("http".utf8) || buffer.elementsEqual("https".utf8) else { return nil }
                    url.https = buffer.count == 5
                    buffer = []
                    if let base, base.https == url.https {
                        state = .specialRelativeOrAuthority
                    } else {
                        state = .specialAuthoritySlashes
                    }
                } else {
                    buffer = []
                    state = .noScheme
                    pointer = -1
                }
            case .noScheme:
                guard base != nil else { return nil }
                state = .relative
                pointer -= 1
            case .specialRelativeOrAuthority:
                if c == slash, remaining(1) == slash {
                    state = .specialAuthorityIgnoreSlashes
                    pointer += 1
                } else {
                    state = .relative
                    pointer -= 1
                }
            case .relative:
                guard let base else { return nil }
                url.https = base.https
                if c == slash || c == backslash {
                    state = .relativeSlash
                } else {
                    url.takeAuthority(of: base)
                    url.path = base.path
                    url.query = base.query
                    if c == UInt8(ascii: "?") {
                        url.query = []
                        state = .query
                    } else if c == UInt8(ascii: "#") {
                        url.fragment = []
                        state = .fragment
                    } else if c != nil {
                        url.query = nil
                        url.shortenPath()
                        state = .path
                        pointer -= 1
                    }
                }
            case .relativeSlash:
                if c == slash || c == backslash {
                    state = .specialAuthorityIgnoreSlashes
                } else {
                    guard let base else { return nil }
                    url.takeAuthority(of: base)
                    state = .path
                    pointer -= 1
                }
            case .specialAuthoritySlashes:
                if c == slash, remaining(1) == slash {
                    state = .specialAuthorityIgnoreSlashes
                    pointer += 1
                } else {
                    state = .specialAuthorityIgnoreSlashes
                    pointer -= 1
                }
            case .specialAuthorityIgnoreSlashes:
                if c != slash, c != backslash {
                    state = .authority
                    pointer -= 1
                }
            case .authority:
                if c == UInt8(ascii: "@") {
                    if atSignSeen { buffer = Array("%40".utf8) + buffer }
                    atSignSeen = true
                    for byte in buffer {
                        if byte == UInt8(ascii: ":"), !passwordTokenSeen {
                            passwordTokenSeen = true
                            continue
                        }
                        if passwordTokenSeen {
                            PercentEncodeSet.userinfo.append(byte, to: &url.password)
                        } else {
                            PercentEncodeSet.userinfo.append(byte, to: &url.username)
                        }
                    }
                    buffer = []
                } else if c == nil || c == slash || c == UInt8(ascii: "?") || c == UInt8(ascii: "#") || c == backslash {
                    if atSignSeen, buffer.isEmpty { return nil }
                    pointer -= buffer.count + 1
                    buffer = []
                    state = .host
                } else {
                    buffer.append(c!)
                }
            case .host:
                if c == UInt8(ascii: ":"), !insideBrackets {
                    guard !buffer.isEmpty, let host = HostParser.parse(buffer[...]) else { return nil }
                    url.host = host
                    buffer = []
                    state = .port
                } else if c == nil || c == slash || c == UInt8(ascii: "?") || c == UInt8(ascii: "#") || c == backslash {
                    pointer -= 1
                    guard !buffer.isEmpty, let host = HostParser.parse(buffer[...]) else { return nil }
                    url.host = host
                    buffer = []
                    state = .pathStart
                } else {
                    if c == UInt8(ascii: "[") { insideBrackets = true }
                    if c == UInt8(ascii: "]") { insideBrackets = false }
                    buffer.append(c!)
                }
            case .port:
                if let c, isDigit(c) {
                    buffer.append(c)
                } else if c == nil || c == slash || c == UInt8(ascii: "?") || c == UInt8(ascii: "#") || c == backslash {
                    if !buffer.isEmpty {
                        var port = 0
                        for digit in buffer {
                            port = port * 10 + Int(digit - UInt8(ascii: "0"))
                            guard port <= 65535 else { return nil }
                        }
                        url.port = UInt16(port) == url.defaultPort ? nil : UInt16(port)
                        buffer = []
                    }
                    state = .pathStart
                    pointer -= 1
                } else {
                    return nil
                }
            case .pathStart:
                state = .path
                if c != slash, c != backslash { pointer -= 1 }
            case .path:
                if c == nil || c == slash || c == backslash || c == UInt8(ascii: "?") || c == UInt8(ascii: "#") {
                    let separator = c == slash || c == backslash
                    if isDoubleDot(buffer[...]) {
                        url.shortenPath()
                        if !separator { url.path.append(slash) }
                    } else if isSingleDot(buffer[...]) {
                        if !separator { url.path.append(slash) }
                    } else {
                        url.path.append(slash)
                        url.path += buffer
                    }
                    buffer = []
                    if c == UInt8(ascii: "?") {
                        url.query = []
                        state = .query
                    } else if c == UInt8(ascii: "#") {
                        url.fragment = []
                        state = .fragment
                    }
                } else {
                    PercentEncodeSet.path.append(c!, to: &buffer)
                }
            case .query:
                if c == nil || c == UInt8(ascii: "#") {
                    for byte in buffer { PercentEncodeSet.specialQuery.append(byte, to: &url.query!) }
                    buffer = []
                    if c == UInt8(ascii: "#") {
                        url.fragment = []
                        state = .fragment
                    }
                } else {
                    buffer.append(c!)
                }
            case .fragment:
                if let c { PercentEncodeSet.fragment.append(c, to: &url.fragment!) }
            }
            // "If after a run pointer points to the EOF code point, go to the next step."
            if pointer >= bytes.count { break }
            pointer += 1
        }
        // A special URL always has a path, and a host.
        if url.path.isEmpty { url.path = [slash] }
        return url.host.isEmpty ? nil : url
    }
}
