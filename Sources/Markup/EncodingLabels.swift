import TextUtilities

/// The Encoding Standard's encodings and their labels (WHATWG Encoding, §4.2 "Names and
/// labels"), each with the name iconv (and libxml2, which calls it) knows it by.
/// <https://encoding.spec.whatwg.org/#names-and-labels>
///
/// "To get an encoding from a string label: remove any leading and trailing ASCII
/// whitespace, and if the result is an ASCII case-insensitive match for any of the labels
/// listed in the table below, return the corresponding encoding; otherwise return failure."
/// Unknown labels are failures, never passed through: `iso-8859-9` is windows-1254, and
/// `iso-8859-1` is windows-1252, as every browser reads them.
public struct WebEncoding: Sendable, Hashable {
    /// The Standard's name (`windows-1252`, `shift_jis`, `replacement`…).
    public var name: String
    /// The iconv name the bytes are decoded with (`WINDOWS-1252`, `CP932`…). Two are no
    /// iconv names: `REPLACEMENT` (the whole document decodes to one U+FFFD: labels that
    /// name encodings the web must not decode, such as ISO-2022-KR) and `X-USER-DEFINED`
    /// (bytes 0x80–0xFF to U+F780–U+F7FF), both handled by ``CharsetConversion``.
    public var iconvName: String

    public static let utf8 = WebEncoding(name: "utf-8", iconvName: "UTF-8")
    public static let windows1252 = WebEncoding(name: "windows-1252", iconvName: "WINDOWS-1252")

    /// The encoding `label` names, or nil (failure).
    public init?(label: String) {
        // ASCII case-insensitive: only A–Z fold (a Kelvin sign is no "k").
        let key = String(decoding: label.trimmingASCIIWhitespace().utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
        guard let found = Self.byLabel[key] else { return nil }
        self = found
    }

    init(name: String, iconvName: String) {
        self.name = name
        self.iconvName = iconvName
    }

    public var isUTF16: Bool { name == "utf-16be" || name == "utf-16le" }

    private static let byLabel: [String: WebEncoding] = {
        var map: [String: WebEncoding] = [:]
        for (name, iconv, labels) in table {
            for label in labels { map[label] = WebEncoding(name: name, iconvName: iconv) }
        }
        return map
    }()

    /// (name, iconv name, labels), in the Standard's order.
    static let table: [(String, String, [String])] = [
        ("utf-8", "UTF-8", ["unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "utf-8", "utf8", "x-unicode20utf8"]),
        ("ibm866", "IBM866", ["866", "cp866", "csibm866", "ibm866"]),
        ("iso-8859-2", "ISO-8859-2", [
            "csisolatin2", "iso-8859-2", "iso-ir-101", "iso8859-2", "iso88592", "iso_8859-2", "iso_8859-2:1987", "l2", "latin2",
        ]),
        ("iso-8859-3", "ISO-8859-3", [
            "csisolatin3", "iso-8859-3", "iso-ir-109", "iso8859-3", "iso88593", "iso_8859-3", "iso_8859-3:1988", "l3", "latin3",
        ]),
        ("iso-8859-4", "ISO-8859-4", [
            "csisolatin4", "iso-8859-4", "iso-ir-110", "iso8859-4", "iso88594", "iso_8859-4", "iso_8859-4:1988", "l4", "latin4",
        ]),
        ("iso-8859-5", "ISO-8859-5", [
            "csisolatincyrillic", "cyrillic", "iso-8859-5", "iso-ir-144", "iso8859-5", "iso88595", "iso_8859-5", "iso_8859-5:1988",
        ]),
        ("iso-8859-6", "ISO-8859-6", [
            "arabic", "asmo-708", "csiso88596e", "csiso88596i", "csisolatinarabic", "ecma-114", "iso-8859-6", "iso-8859-6-e",
            "iso-8859-6-i", "iso-ir-127", "iso8859-6", "iso88596", "iso_8859-6", "iso_8859-6:1987",
        ]),
        ("iso-8859-7", "ISO-8859-7", [
            "csisolatingreek", "ecma-118", "elot_928", "greek", "greek8", "iso-8859-7", "iso-ir-126", "iso8859-7", "iso88597",
            "iso_8859-7", "iso_8859-7:1987", "sun_eu_greek",
        ]),
        ("iso-8859-8", "ISO-8859-8", [
            "csiso88598e", "csisolatinhebrew", "hebrew", "iso-8859-8", "iso-8859-8-e", "iso-ir-138", "iso8859-8", "iso88598", "iso_8859-8",
            "iso_8859-8:1988", "visual",
        ]),
        ("iso-8859-8-i", "ISO-8859-8", ["csiso88598i", "iso-8859-8-i", "logical"]),
        ("iso-8859-10", "ISO-8859-10", ["csisolatin6", "iso-8859-10", "iso-ir-157", "iso8859-10", "iso885910", "l6", "latin6"]),
        ("iso-8859-13", "ISO-8859-13", ["iso-8859-13", "iso8859-13", "iso885913"]),
        ("iso-8859-14", "ISO-8859-14", ["iso-8859-14", "iso8859-14", "iso885914"]),
        ("iso-8859-15", "ISO-8859-15", ["csisolatin9", "iso-8859-15", "iso8859-15", "iso885915", "iso_8859-15", "l9"]),
        ("iso-8859-16", "ISO-8859-16", ["iso-8859-16"]),
        ("koi8-r", "KOI8-R", ["cskoi8r", "koi", "koi8", "koi8-r", "koi8_r"]),
        ("koi8-u", "KOI8-U", ["koi8-ru", "koi8-u"]),
        ("macintosh", "MACINTOSH", ["csmacintosh", "mac", "macintosh", "x-mac-roman"]),
        ("windows-874", "WINDOWS-874", ["dos-874", "iso-8859-11", "iso8859-11", "iso885911", "tis-620", "windows-874"]),
        ("windows-1250", "WINDOWS-1250", ["cp1250", "windows-1250", "x-cp1250"]),
        ("windows-1251", "WINDOWS-1251", ["cp1251", "windows-1251", "x-cp1251"]),
        ("windows-1252", "WINDOWS-1252", [
            "ansi_x3.4-1968", "ascii", "cp1252", "cp819", "csisolatin1", "ibm819", "iso-8859-1", "iso-ir-100", "iso8859-1", "iso88591",
            "iso_8859-1", "iso_8859-1:1987", "l1", "latin1", "us-ascii", "windows-1252", "x-cp1252",
        ]),
        ("windows-1253", "WINDOWS-1253", ["cp1253", "windows-1253", "x-cp1253"]),
        ("windows-1254", "WINDOWS-1254", [
            "cp1254", "csisolatin5", "iso-8859-9", "iso-ir-148", "iso8859-9", "iso88599", "iso_8859-9", "iso_8859-9:1989", "l5", "latin5",
            "windows-1254", "x-cp1254",
        ]),
        ("windows-1255", "WINDOWS-1255", ["cp1255", "windows-1255", "x-cp1255"]),
        ("windows-1256", "WINDOWS-1256", ["cp1256", "windows-1256", "x-cp1256"]),
        ("windows-1257", "WINDOWS-1257", ["cp1257", "windows-1257", "x-cp1257"]),
        ("windows-1258", "WINDOWS-1258", ["cp1258", "windows-1258", "x-cp1258"]),
        ("x-mac-cyrillic", "MAC-CYRILLIC", ["x-mac-cyrillic", "x-mac-ukrainian"]),
        ("gbk", "GB18030", ["chinese", "csgb2312", "csiso58gb231280", "gb2312", "gb_2312", "gb_2312-80", "gbk", "iso-ir-58", "x-gbk"]),
        ("gb18030", "GB18030", ["gb18030"]),
        ("big5", "BIG5-HKSCS", ["big5", "big5-hkscs", "cn-big5", "csbig5", "x-x-big5"]),
        ("euc-jp", "EUC-JP", ["cseucpkdfmtjapanese", "euc-jp", "x-euc-jp"]),
        ("iso-2022-jp", "ISO-2022-JP", ["csiso2022jp", "iso-2022-jp"]),
        ("shift_jis", "CP932", ["csshiftjis", "ms932", "ms_kanji", "shift-jis", "shift_jis", "sjis", "windows-31j", "x-sjis"]),
        ("euc-kr", "CP949", [
            "cseuckr", "csksc56011987", "euc-kr", "iso-ir-149", "korean", "ks_c_5601-1987", "ks_c_5601-1989", "ksc5601", "ksc_5601",
            "windows-949",
        ]),
        ("replacement", "REPLACEMENT", ["csiso2022kr", "hz-gb-2312", "iso-2022-cn", "iso-2022-cn-ext", "iso-2022-kr", "replacement"]),
        ("utf-16be", "UTF-16BE", ["unicodefffe", "utf-16be"]),
        ("utf-16le", "UTF-16LE", ["csunicode", "iso-10646-ucs-2", "ucs-2", "unicode", "unicodefeff", "utf-16", "utf-16le"]),
        ("x-user-defined", "X-USER-DEFINED", ["x-user-defined"]),
    ]
}
