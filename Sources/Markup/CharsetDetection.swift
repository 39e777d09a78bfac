import TextUtilities
import Glibc

/// Which character encoding a page is read with, and why.
public struct CharsetDecision: Sendable, Hashable {
    /// The encoding's name as iconv knows it (`UTF-8`, `CP932`, `GB18030`, `WINDOWS-1252`…).
    public var encoding: String
    /// Its name in the Encoding Standard (`utf-8`, `shift_jis`, `gbk`, `windows-1252`…).
    public var standardName: String
    public var source: Source
    /// The label as the page or header wrote it, when there was one.
    public var declaredLabel: String?

    public enum Source: String, Sendable, Hashable {
        /// A byte order mark.
        case bom
        /// The Content-Type header's charset parameter.
        case header
        /// `<meta charset>` or `<meta http-equiv="Content-Type">`.
        case meta
        /// Nothing declared; the bytes read as valid UTF-8.
        case sniffed
        /// Nothing usable declared; windows-1252, the web's default.
        case `default`
    }

    public var isUTF8: Bool { encoding == "UTF-8" }

    public init(_ encoding: WebEncoding, source: Source, declaredLabel: String?) {
        self.encoding = encoding.iconvName
        standardName = encoding.name
        self.source = source
        self.declaredLabel = declaredLabel
    }
}

/// The HTML encoding-sniffing rules (WHATWG Encoding and HTML §13.2.3.2), in this
/// order: a BOM, then the transport's charset, then a `<meta>` declaration found by
/// prescanning the start of the document, then UTF-8 when the bytes are valid UTF-8,
/// else windows-1252. Validity is not checked here: ``decide(bytes:contentType:)``
/// answers `sniffed` UTF-8 and the extractor falls back to windows-1252 when libxml2
/// meets a byte that is not UTF-8, so valid pages are not scanned twice.
public enum CharsetDetection {
    /// How far into the document the `<meta>` prescan looks. WHATWG says 1024 bytes;
    /// real pages put long scripts before their meta tag, so look further (html5lib reads
    /// metas 8 KB in).
    static let prescanLimit = 16 * 1024

    public static func decide(bytes: UnsafeBufferPointer<UInt8>, contentType: String?) -> (CharsetDecision, bomLength: Int, warnings: [ExtractionWarning]) {
        var warnings: [ExtractionWarning] = []
        if let (encoding, length) = byteOrderMark(bytes) {
            return (CharsetDecision(encoding, source: .bom, declaredLabel: nil), length, [])
        }
        if let label = contentType.flatMap(charsetParameter) {
            if let encoding = WebEncoding(label: label) {
                return (CharsetDecision(encoding, source: .header, declaredLabel: label), 0, [])
            }
            warnings.append(ExtractionWarning(.unknownCharset, "unknown charset '\(label.prefix(100))' in Content-Type"))
        }
        let scan = prescan(bytes)
        if let (encoding, label) = scan.found {
            return (CharsetDecision(encoding, source: .meta, declaredLabel: label), 0, warnings)
        }
        for label in scan.unknownLabels {
            warnings.append(ExtractionWarning(.unknownCharset, "unknown charset '\(label.prefix(100))' in <meta>"))
        }
        return (CharsetDecision(.utf8, source: .sniffed, declaredLabel: nil), 0, warnings)
    }

    static func byteOrderMark(_ b: UnsafeBufferPointer<UInt8>) -> (WebEncoding, Int)? {
        if b.count >= 3, b[0] == 0xEF, b[1] == 0xBB, b[2] == 0xBF { return (.utf8, 3) }
        if b.count >= 2, b[0] == 0xFE, b[1] == 0xFF { return (WebEncoding(name: "utf-16be", iconvName: "UTF-16BE"), 2) }
        if b.count >= 2, b[0] == 0xFF, b[1] == 0xFE { return (WebEncoding(name: "utf-16le", iconvName: "UTF-16LE"), 2) }
        return nil
    }

    /// The `charset` parameter of a Content-Type value, unquoted.
    public static func charsetParameter(_ contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingASCIIWhitespace().lowercased() == "charset" else { continue }
            var value = pair[1].trimmingASCIIWhitespace()
            if value.count >= 2, value.first == "\"" || value.first == "'", value.last == value.first {
                value = String(value.dropFirst().dropLast())
            }
            return value.isEmpty ? nil : value
        }
        return nil
    }

    /// The iconv name of the encoding `label` names (WHATWG "get an encoding"), or nil.
    public static func encodingName(forLabel label: String) -> String? {
        WebEncoding(label: label)?.iconvName
    }

    // MARK: the <meta> prescan

    /// What the prescan found: the encoding and the label that named it, and the labels
    /// of `<meta>`s it went past because they named no encoding.
    struct Prescan {
        var found: (WebEncoding, String)?
        var unknownLabels: [String] = []
    }

    /// HTML's "prescan a byte stream to determine its encoding" (§13.2.3.2), step by step:
    /// comments skipped; each `<meta>` read attribute by attribute (duplicates ignored),
    /// `charset` or `http-equiv=content-type` with `content`; a meta naming no known
    /// encoding passed over for the next; other tags' attributes skipped whole (so a
    /// `<meta charset>` inside an attribute value counts for nothing); `<!`, `</`, `<?`
    /// skipped to their `>`. Running off the end of the bytes looked at, inside a tag,
    /// aborts: an unterminated declaration declares nothing. UTF-16 becomes UTF-8 and
    /// x-user-defined windows-1252, as the algorithm says.
    static func prescan(_ bytes: UnsafeBufferPointer<UInt8>) -> Prescan {
        var scan = Prescan()
        guard let base = bytes.baseAddress else { return scan }
        var reader = PrescanReader(bytes: UnsafeBufferPointer(start: base, count: min(bytes.count, prescanLimit)))
        while reader.position < reader.end {
            guard let found = memchr(base + reader.position, Int32(UInt8(ascii: "<")), reader.end - reader.position) else { return scan }
            reader.position = UnsafeRawPointer(found) - UnsafeRawPointer(base)
            if reader.matches("<!--") {
                // The first '>' preceded by "--", after the '<' (so "<!-->" ends itself).
                var j = reader.position + 4
                while j < reader.end, !(reader[j] == UInt8(ascii: ">") && reader[j - 1] == UInt8(ascii: "-") && reader[j - 2] == UInt8(ascii: "-")) {
                    j += 1
                }
                guard j < reader.end else { return scan }
                reader.position = j + 1
            } else if reader.matchesIgnoringCase("<meta"), reader.position + 5 < reader.end, PrescanReader.isSpaceOrSlash(reader[reader.position + 5]) {
                reader.position += 5
                guard let meta = reader.readMeta() else { return scan }
                switch meta {
                case .encoding(let encoding, let label):
                    var encoding = encoding
                    if encoding.isUTF16 { encoding = .utf8 }
                    if encoding.name == "x-user-defined" { encoding = .windows1252 }
                    scan.found = (encoding, label)
                    return scan
                case .unknown(let label):
                    if scan.unknownLabels.count < 8 { scan.unknownLabels.append(label) }
                case .nothing:
                    break
                }
            } else if reader.startsTag {
                // Another tag: to the first whitespace or '>', then past its attributes.
                while reader.position < reader.end, !PrescanReader.isSpace(reader[reader.position]), reader[reader.position] != UInt8(ascii: ">") {
                    reader.position += 1
                }
                while true {
                    guard let attribute = reader.nextAttribute() else { return scan }
                    if attribute == nil { break }
                }
                reader.position += 1
            } else if reader.matches("<!") || reader.matches("</") || reader.matches("<?") {
                guard let close = memchr(base + reader.position + 2, Int32(UInt8(ascii: ">")), max(0, reader.end - reader.position - 2)) else { return scan }
                reader.position = UnsafeRawPointer(close) - UnsafeRawPointer(base) + 1
            } else {
                reader.position += 1
            }
        }
        return scan
    }

    /// The WHATWG "extract a character encoding from a meta element" algorithm, on a
    /// `content` value: the label after the first `charset` that is followed by `=`.
    static func charsetFromMetaContent(_ content: String) -> String? {
        let bytes = Array(content.utf8)
        var position = 0
        while position < bytes.count {
            // Find "charset", ASCII case-insensitively.
            var start: Int?
            var i = position
            while i + 7 <= bytes.count {
                if zip(bytes[i..<(i + 7)], "charset".utf8).allSatisfy({ $0 | 0x20 == $1 }) {
                    start = i
                    break
                }
                i += 1
            }
            guard let found = start else { return nil }
            var j = found + 7
            while j < bytes.count, PrescanReader.isSpace(bytes[j]) { j += 1 }
            guard j < bytes.count, bytes[j] == UInt8(ascii: "=") else {
                position = j
                continue
            }
            j += 1
            while j < bytes.count, PrescanReader.isSpace(bytes[j]) { j += 1 }
            guard j < bytes.count else { return nil }
            if bytes[j] == UInt8(ascii: "\"") || bytes[j] == UInt8(ascii: "'") {
                let quote = bytes[j]
                guard let close = bytes[(j + 1)...].firstIndex(of: quote) else { return nil }
                return String(decoding: bytes[(j + 1)..<close], as: UTF8.self)
            }
            var end = j
            while end < bytes.count, !PrescanReader.isSpace(bytes[end]), bytes[end] != UInt8(ascii: ";") { end += 1 }
            return end > j ? String(decoding: bytes[j..<end], as: UTF8.self) : nil
        }
        return nil
    }
}

/// The prescan's cursor over the bytes it looks at, and its "get an attribute" step.
struct PrescanReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0
    var end: Int { bytes.count }

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    subscript(index: Int) -> UInt8 { bytes[index] }

    static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0C || c == 0x0D }
    static func isSpaceOrSlash(_ c: UInt8) -> Bool { isSpace(c) || c == UInt8(ascii: "/") }

    func matches(_ literal: StaticString) -> Bool {
        let n = literal.utf8CodeUnitCount
        guard position + n <= end else { return false }
        for k in 0..<n where bytes[position + k] != literal.utf8Start[k] { return false }
        return true
    }

    func matchesIgnoringCase(_ literal: StaticString) -> Bool {
        let n = literal.utf8CodeUnitCount
        guard position + n <= end else { return false }
        for k in 0..<n where bytes[position + k] | 0x20 != literal.utf8Start[k] | 0x20 { return false }
        return true
    }

    /// `<` then a letter, or `</` then a letter: a tag other than `<meta`.
    var startsTag: Bool {
        func isLetter(_ index: Int) -> Bool { index < end && bytes[index] | 0x20 >= UInt8(ascii: "a") && bytes[index] | 0x20 <= UInt8(ascii: "z") }
        return isLetter(position + 1) || (position + 1 < end && bytes[position + 1] == UInt8(ascii: "/") && isLetter(position + 2))
    }

    enum Meta {
        case encoding(WebEncoding, label: String)
        case unknown(String)
        case nothing
    }

    /// The attributes of one `<meta>` and what they declare; nil when the bytes ran out.
    mutating func readMeta() -> Meta? {
        var names = Set<String>()
        var gotPragma = false
        var needPragma: Bool?
        var charset: (WebEncoding, String)?
        var unknown: String?
        while true {
            guard let next = nextAttribute() else { return nil }
            guard let (name, value) = next else { break }
            guard names.insert(name).inserted else { continue }
            switch name {
            case "http-equiv":
                if value == "content-type" { gotPragma = true }
            case "content":
                if charset == nil, let label = CharsetDetection.charsetFromMetaContent(value) {
                    if let encoding = WebEncoding(label: label) {
                        charset = (encoding, label)
                        needPragma = true
                    } else {
                        unknown = label
                    }
                }
            case "charset":
                if charset == nil {
                    if let encoding = WebEncoding(label: value) { charset = (encoding, value) } else { unknown = value }
                    needPragma = false
                }
            default:
                break
            }
        }
        guard let needPragma, !(needPragma && !gotPragma) else { return .nothing }
        guard let (encoding, label) = charset else { return unknown.map(Meta.unknown) ?? .nothing }
        return .encoding(encoding, label: label)
    }

    /// HTML's "get an attribute": `.some(nil)` at the tag's `>` (the position left on
    /// it), nil when the bytes ran out first. Names and values come lower-cased.
    mutating func nextAttribute() -> (String, String)?? {
        while position < end, Self.isSpaceOrSlash(bytes[position]) { position += 1 }
        guard position < end else { return nil }
        if bytes[position] == UInt8(ascii: ">") { return .some(nil) }
        var name: [UInt8] = []
        var value: [UInt8] = []
        func lower(_ c: UInt8) -> UInt8 { c >= 0x41 && c <= 0x5A ? c | 0x20 : c }
        // The name.
        while true {
            guard position < end else { return nil }
            let c = bytes[position]
            if c == UInt8(ascii: "="), !name.isEmpty {
                position += 1
                break
            }
            if Self.isSpace(c) {
                while position < end, Self.isSpace(bytes[position]) { position += 1 }
                guard position < end else { return nil }
                guard bytes[position] == UInt8(ascii: "=") else { return .some((String(decoding: name, as: UTF8.self), "")) }
                position += 1
                break
            }
            if c == UInt8(ascii: "/") || c == UInt8(ascii: ">") { return .some((String(decoding: name, as: UTF8.self), "")) }
            name.append(lower(c))
            position += 1
        }
        // The value.
        while position < end, Self.isSpace(bytes[position]) { position += 1 }
        guard position < end else { return nil }
        let first = bytes[position]
        if first == UInt8(ascii: "\"") || first == UInt8(ascii: "'") {
            position += 1
            while true {
                guard position < end else { return nil }
                let c = bytes[position]
                position += 1
                if c == first { return .some((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))) }
                value.append(lower(c))
            }
        }
        if first == UInt8(ascii: ">") { return .some((String(decoding: name, as: UTF8.self), "")) }
        while true {
            guard position < end else { return nil }
            let c = bytes[position]
            if Self.isSpace(c) || c == UInt8(ascii: ">") { return .some((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))) }
            value.append(lower(c))
            position += 1
        }
    }
}
