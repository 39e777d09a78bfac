import TextUtilities
import Glibc

/// Which character encoding a page is read with, and why.
public struct CharsetDecision: Sendable, Hashable {
    /// The encoding's name as iconv knows it (`UTF-8`, `CP932`, `GB18030`, `WINDOWS-1252`…).
    public var encoding: String
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
}

/// The HTML encoding-sniffing rules (WHATWG Encoding and HTML §13.2.3.2), in this
/// order: a BOM, then the transport's charset, then a `<meta>` declaration found by
/// prescanning the start of the document, then UTF-8 when the bytes are valid UTF-8,
/// else windows-1252. Validity is not checked here: ``decide(bytes:contentType:)``
/// answers `sniffed` UTF-8 and the extractor falls back to windows-1252 when libxml2
/// meets a byte that is not UTF-8, so valid pages are not scanned twice.
public enum CharsetDetection {
    /// How far into the document the `<meta>` prescan looks. WHATWG says 1024 bytes;
    /// real pages put long scripts before their meta tag, so look further.
    static let prescanLimit = 16 * 1024

    public static func decide(bytes: UnsafeBufferPointer<UInt8>, contentType: String?) -> (CharsetDecision, bomLength: Int, warnings: [ExtractionWarning]) {
        var warnings: [ExtractionWarning] = []
        if let (encoding, length) = byteOrderMark(bytes) {
            return (CharsetDecision(encoding: encoding, source: .bom, declaredLabel: nil), length, [])
        }
        if let label = contentType.flatMap(charsetParameter) {
            if let encoding = encodingName(forLabel: label) {
                return (CharsetDecision(encoding: encoding, source: .header, declaredLabel: label), 0, [])
            }
            warnings.append(ExtractionWarning(.unknownCharset, "unknown charset '\(label)' in Content-Type"))
        }
        if let label = prescanMeta(bytes) {
            if var encoding = encodingName(forLabel: label) {
                // A meta tag readable as ASCII cannot really be UTF-16 (WHATWG: treat as UTF-8).
                if encoding.hasPrefix("UTF-16") { encoding = "UTF-8" }
                return (CharsetDecision(encoding: encoding, source: .meta, declaredLabel: label), 0, warnings)
            }
            warnings.append(ExtractionWarning(.unknownCharset, "unknown charset '\(label)' in <meta>"))
        }
        return (CharsetDecision(encoding: "UTF-8", source: .sniffed, declaredLabel: nil), 0, warnings)
    }

    static func byteOrderMark(_ b: UnsafeBufferPointer<UInt8>) -> (String, Int)? {
        if b.count >= 3, b[0] == 0xEF, b[1] == 0xBB, b[2] == 0xBF { return ("UTF-8", 3) }
        if b.count >= 2, b[0] == 0xFE, b[1] == 0xFF { return ("UTF-16BE", 2) }
        if b.count >= 2, b[0] == 0xFF, b[1] == 0xFE { return ("UTF-16LE", 2) }
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

    /// WHATWG Encoding labels mapped to iconv names (the encodings a web crawler meets;
    /// the legacy single-byte families are passed through under their own names).
    public static func encodingName(forLabel label: String) -> String? {
        let key = label.trimmingASCIIWhitespace().lowercased()
        if let name = labels[key] { return name }
        if key.hasPrefix("iso-8859-") || key.hasPrefix("iso8859-") || key.hasPrefix("windows-125") || key.hasPrefix("koi8") {
            return key.uppercased()
        }
        return nil
    }

    private static let labels: [String: String] = {
        var map: [String: String] = [:]
        func add(_ name: String, _ labels: [String]) { for label in labels { map[label] = name } }
        add("UTF-8", ["unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "utf-8", "utf8", "x-unicode20utf8"])
        add("WINDOWS-1252", [
            "ansi_x3.4-1968", "ascii", "cp1252", "cp819", "csisolatin1", "ibm819", "iso-8859-1", "iso-ir-100",
            "iso8859-1", "iso88591", "iso_8859-1", "iso_8859-1:1987", "l1", "latin1", "us-ascii", "windows-1252", "x-cp1252",
        ])
        // WHATWG decodes every GBK label with the gb18030 decoder.
        add("GB18030", ["chinese", "csgb2312", "csiso58gb231280", "gb2312", "gb_2312", "gb_2312-80", "gbk", "iso-ir-58", "x-gbk", "gb18030"])
        add("BIG5-HKSCS", ["big5", "big5-hkscs", "cn-big5", "csbig5", "x-x-big5"])
        add("CP932", ["csshiftjis", "ms932", "ms_kanji", "shift-jis", "shift_jis", "sjis", "windows-31j", "x-sjis"])
        add("EUC-JP", ["cseucpkdfmtjapanese", "euc-jp", "x-euc-jp"])
        add("ISO-2022-JP", ["csiso2022jp", "iso-2022-jp"])
        add("CP949", ["cseuckr", "csksc56011987", "euc-kr", "iso-ir-149", "korean", "ks_c_5601-1987", "ks_c_5601-1989", "ksc5601", "ksc_5601", "windows-949"])
        add("UTF-16LE", ["csunicode", "iso-10646-ucs-2", "ucs-2", "unicode", "unicodefeff", "utf-16", "utf-16le"])
        add("UTF-16BE", ["unicodefffe", "utf-16be"])
        add("KOI8-R", ["cskoi8r", "koi", "koi8", "koi8-r", "koi8_r"])
        add("KOI8-U", ["koi8-ru", "koi8-u"])
        add("CP866", ["866", "cp866", "csibm866", "ibm866"])
        add("MACINTOSH", ["csmacintosh", "mac", "macintosh", "x-mac-roman"])
        add("CP874", ["dos-874", "iso-8859-11", "iso8859-11", "iso885911", "tis-620", "windows-874"])
        add("ISO-8859-2", ["csisolatin2", "iso-ir-101", "iso8859-2", "iso88592", "iso_8859-2", "l2", "latin2"])
        add("ISO-8859-5", ["csisolatincyrillic", "cyrillic", "iso-ir-144", "iso8859-5", "iso88595", "iso_8859-5"])
        add("ISO-8859-7", ["csisolatingreek", "ecma-118", "elot_928", "greek", "greek8", "iso-ir-126", "iso8859-7", "iso88597", "iso_8859-7", "sun_eu_greek"])
        add("WINDOWS-1251", ["cp1251", "windows-1251", "x-cp1251"])
        add("WINDOWS-1250", ["cp1250", "windows-1250", "x-cp1250"])
        add("ISO-8859-15", ["csisolatin9", "iso8859-15", "iso885915", "iso_8859-15", "l9", "latin9"])
        return map
    }()

    // MARK: the <meta> prescan

    /// Finds the charset declared by the first `<meta charset>` or
    /// `<meta http-equiv="content-type" content="…charset=…">` near the start of the
    /// document, skipping comments, as the HTML prescan does.
    static func prescanMeta(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let end = min(bytes.count, prescanLimit)
        var i = 0
        guard let base = bytes.baseAddress else { return nil }
        while i < end {
            guard let found = memchr(base + i, Int32(UInt8(ascii: "<")), end - i) else { return nil }
            i = UnsafeRawPointer(found) - UnsafeRawPointer(base)
            if matches(bytes, i, "<!--") {
                i += 4
                while i + 2 < end, !(bytes[i] == UInt8(ascii: "-") && bytes[i + 1] == UInt8(ascii: "-") && bytes[i + 2] == UInt8(ascii: ">")) { i += 1 }
                i += 3
                continue
            }
            if matchesIgnoringCase(bytes, i, "<meta"), i + 5 < end, isSpaceOrSlash(bytes[i + 5]) {
                var j = i + 5
                var attributes: [(String, String)] = []
                while let (name, value, next) = nextAttribute(bytes, from: j, end: end) {
                    attributes.append((name, value))
                    j = next
                }
                if let charset = attributes.first(where: { $0.0 == "charset" })?.1, !charset.isEmpty {
                    return charset
                }
                let httpEquiv = attributes.first { $0.0 == "http-equiv" }?.1.lowercased()
                if httpEquiv == "content-type", let content = attributes.first(where: { $0.0 == "content" })?.1,
                    let charset = charsetFromMetaContent(content)
                {
                    return charset
                }
                i = j
                continue
            }
            i += 1
        }
        return nil
    }

    /// The WHATWG "extract a character encoding from a meta element" algorithm.
    static func charsetFromMetaContent(_ content: String) -> String? {
        let lower = content.lowercased()
        guard let range = lower.firstRange(of: "charset") else { return nil }
        var rest = lower[range.upperBound...].drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard rest.first == "=" else { return charsetFromMetaContent(String(lower[range.upperBound...])) }
        rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        if let quote = rest.first, quote == "\"" || quote == "'" {
            let body = rest.dropFirst()
            guard let close = body.firstIndex(of: quote) else { return nil }
            return String(body[..<close])
        }
        let value = rest.prefix { $0 != ";" && $0 != " " && $0 != "\t" && $0 != "\n" && $0 != "\r" }
        return value.isEmpty ? nil : String(value)
    }

    private static func isSpaceOrSlash(_ c: UInt8) -> Bool {
        c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0C || c == 0x0D || c == UInt8(ascii: "/")
    }

    private static func matches(_ b: UnsafeBufferPointer<UInt8>, _ at: Int, _ literal: StaticString) -> Bool {
        let n = literal.utf8CodeUnitCount
        guard at + n <= b.count else { return false }
        for k in 0..<n where b[at + k] != literal.utf8Start[k] { return false }
        return true
    }

    private static func matchesIgnoringCase(_ b: UnsafeBufferPointer<UInt8>, _ at: Int, _ literal: StaticString) -> Bool {
        let n = literal.utf8CodeUnitCount
        guard at + n <= b.count else { return false }
        for k in 0..<n where b[at + k] | 0x20 != literal.utf8Start[k] | 0x20 { return false }
        return true
    }

    /// One attribute of a tag being prescanned; nil at `>` or the end.
    private static func nextAttribute(_ b: UnsafeBufferPointer<UInt8>, from start: Int, end: Int) -> (String, String, Int)? {
        var i = start
        while i < end, isSpaceOrSlash(b[i]) { i += 1 }
        guard i < end, b[i] != UInt8(ascii: ">") else { return nil }
        let nameStart = i
        while i < end, b[i] != UInt8(ascii: "="), b[i] != UInt8(ascii: ">"), !isSpaceOrSlash(b[i]) { i += 1 }
        let name = String(decoding: UnsafeBufferPointer(rebasing: b[nameStart..<i]), as: UTF8.self).lowercased()
        while i < end, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0A || b[i] == 0x0D { i += 1 }
        guard i < end, b[i] == UInt8(ascii: "=") else { return (name, "", i) }
        i += 1
        while i < end, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0A || b[i] == 0x0D { i += 1 }
        guard i < end else { return (name, "", i) }
        var valueStart = i
        var valueEnd: Int
        if b[i] == UInt8(ascii: "\"") || b[i] == UInt8(ascii: "'") {
            let quote = b[i]
            valueStart = i + 1
            i = valueStart
            while i < end, b[i] != quote { i += 1 }
            valueEnd = i
            i = min(i + 1, end)
        } else {
            while i < end, b[i] != UInt8(ascii: ">"), b[i] != 0x20, b[i] != 0x09, b[i] != 0x0A, b[i] != 0x0D { i += 1 }
            valueEnd = i
        }
        let value = String(decoding: UnsafeBufferPointer(rebasing: b[valueStart..<valueEnd]), as: UTF8.self)
        return (name, value, i)
    }
}
