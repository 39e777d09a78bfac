import Markup
import Testing

/// Charset fixtures are stored as exact bytes; each must come out as correct UTF-8.
@Suite struct CharsetTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var file: String
        var encoding: String
        var source: CharsetDecision.Source
        var title: String
        var contentType: String? = nil
        var testDescription: String { file }
    }

    @Test(arguments: [
        Case(file: "gbk.html", encoding: "GB18030", source: .meta, title: "篮球直播 — 星火"),
        Case(file: "gb18030.html", encoding: "GB18030", source: .meta, title: "生僻字 𠀀 测试"),
        Case(file: "big5.html", encoding: "BIG5-HKSCS", source: .meta, title: "籃球直播"),
        Case(file: "shift_jis.html", encoding: "CP932", source: .meta, title: "東京の天気 ～ 晴れ"),
        Case(file: "euc-kr.html", encoding: "CP949", source: .meta, title: "오늘의 날씨"),
        Case(file: "windows-1252.html", encoding: "WINDOWS-1252", source: .meta, title: "Café “Crème” — €5"),
        Case(file: "utf16le-bom.html", encoding: "UTF-16LE", source: .bom, title: "Grüße aus 東京"),
        Case(file: "utf8-bom-wins.html", encoding: "UTF-8", source: .bom, title: "Ünïcödé BOM"),
        Case(file: "undeclared-latin.html", encoding: "WINDOWS-1252", source: .default, title: "Déjà vu"),
        Case(file: "late-meta-gbk.html", encoding: "GB18030", source: .meta, title: "晚到的声明"),
        Case(file: "header-only-sjis.html", encoding: "CP932", source: .header, title: "ヘッダーだけ",
             contentType: "text/html; charset=\"Shift_JIS\""),
        // The header outranks the page's own <meta>.
        Case(file: "gbk.html", encoding: "GB18030", source: .header, title: "篮球直播 — 星火", contentType: "text/html;charset=GBK"),
    ])
    func decodesToUTF8(_ c: Case) {
        let page = Fixture.extract("charset/\(c.file)", url: "https://site.example/", response: .init(contentType: c.contentType))
        #expect(page.charset.encoding == c.encoding)
        #expect(page.charset.source == c.source)
        #expect(page.title == c.title)
        #expect(!page.warnings.contains { $0.code == .invalidBytes || $0.code == .unknownCharset })
    }

    @Test func theDescriptionAndBodyAreDecodedToo() {
        let page = Fixture.extract("charset/euc-kr.html")
        #expect(page.metaDescription == "서울은 맑고 최고 기온은 18도입니다.")
        #expect(page.bodyText == "서울은 맑고 최고 기온은 18도입니다.")
    }

    @Test func invalidUTF8IsReplacedNotLost() {
        let page = Fixture.extract("charset/invalid-utf8.html")
        #expect(page.charset.encoding == "UTF-8")
        #expect(page.metaDescription == "before \u{FFFD}\u{FFFD}\u{FFFD} after")
        #expect(page.title == "Broken \u{FFFD}")
        #expect(page.warnings.contains { $0.code == .invalidBytes })
    }

    @Test func bytesUndefinedInTheDeclaredCharsetAreReplaced() {
        let page = Fixture.extract("charset/cp1252-undefined.html")
        #expect(page.metaDescription == "A\u{FFFD}B")
        #expect(page.bodyText == "A\u{FFFD}B")
        #expect(page.warnings.contains { $0.code == .invalidBytes })
    }

    @Test func anUnknownLabelFallsBackAndSaysSo() {
        let page = extract("<meta charset=\"x-klingon\"><title>Qapla’</title>", response: .init(contentType: "text/html; charset=bogus"))
        #expect(page.charset.encoding == "UTF-8")
        #expect(page.title == "Qapla’")
        #expect(page.warnings.filter { $0.code == .unknownCharset }.count == 2)
    }

    @Test(arguments: [
        ("text/html; charset=UTF-8", "UTF-8"), ("text/html;charset=\"iso-8859-1\"", "iso-8859-1"),
        ("text/html; foo=bar; Charset='sjis'", "sjis"), ("text/html", nil), ("text/html; charset=", nil),
    ])
    func contentTypeCharsetParameter(_ header: String, _ expected: String?) {
        #expect(CharsetDetection.charsetParameter(header) == expected)
    }

    @Test(arguments: [("latin1", "WINDOWS-1252"), ("GB2312", "GB18030"), ("x-sjis", "CP932"), ("ks_c_5601-1987", "CP949"),
                      (" UTF8 ", "UTF-8"), ("iso-8859-9", "WINDOWS-1254"), ("latin3", "ISO-8859-3"), ("cp1256", "WINDOWS-1256"), ("klingon", nil)])
    func whatwgLabels(_ label: String, _ expected: String?) {
        #expect(CharsetDetection.encodingName(forLabel: label) == expected)
    }
}
