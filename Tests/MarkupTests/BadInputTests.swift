import Foundation
@testable import Markup
import Testing
import WebURL

/// Hostile and broken input: extraction always returns, reasonably fast, with warnings.
@Suite struct BadInputTests {
    func timed(_ body: () -> PageMarkup) -> (PageMarkup, Double) {
        let start = Date()
        let page = body()
        return (page, Date().timeIntervalSince(start))
    }

    @Test func anElementWithAHundredThousandAttributes() {
        let html = "<html><head><title>t</title></head><body><div " + (0..<100_000).map { "a\($0)=\"v\"" }.joined(separator: " ")
            + ">inside</div><a href=\"/after\">after</a></body></html>"
        let (page, seconds) = timed { extract(html) }
        #expect(seconds < 20, "libxml2's duplicate-attribute check is quadratic; long tags are cut first")
        #expect(page.title == "t")
        #expect(page.outlinks.map(\.url.string) == ["https://site.example/after"])
        #expect(page.warnings.contains { $0.code == .limitReached })
        #expect(page.visibleText == "inside after", "what comes before and after the cut tag is all there: \(page.visibleText.prefix(80))")
    }

    @Test func nestingAHundredThousandDeep() {
        let html = "<body>" + String(repeating: "<div>", count: 100_000) + "deep" + String(repeating: "</div>", count: 100_000)
            + "<a href='/x'>x</a>"
        let page = extract(html)
        #expect(page.bodyText.contains("deep"))
        #expect(page.outlinks.count == 1)
        let unclosed = extract("<body>" + String(repeating: "<span><b><i>", count: 30_000) + "end")
        #expect(unclosed.bodyText == "end")
    }

    @Test func deeplyNestedMicrodataIsCut() {
        let nested = "<div itemscope>" + String(repeating: "<div itemprop=\"c\" itemscope>", count: 2_000) + "<span itemprop=\"n\">x</span>"
        let page = extract(nested)
        #expect(page.schemaObjects.count == 1)
        #expect(page.warnings.contains { $0.code == .microdata && $0.message.contains("deeper") })
    }

    @Test func truncatedAndUnclosedMarkup() {
        for html in ["<html><head><title>cut", "<a href=\"/x", "<meta name=\"description\" content=\"never closed", "<", "<!--",
                     "<script type=\"application/ld+json\">{\"@type\": \"Thing\", \"name\": \"trunc", "</p></div></html>", ""] {
            _ = extract(html)
        }
        let page = extract("<script type=\"application/ld+json\">{\"@type\": \"Thing\", \"name\": \"trunc")
        #expect(page.schema.name == "trunc")
    }

    @Test func binaryJunkIsReportedNotFatal() {
        var generator = SystemRandomNumberGenerator()
        let junk = (0..<200_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let page = MarkupExtractor().extract(junk, url: WebURL("https://site.example/bin"))
        #expect(page.warnings.contains { $0.code == .notHTML }, "first bytes \(junk.prefix(8))")
        let nulls = MarkupExtractor().extract([UInt8](repeating: 0, count: 10_000), url: nil)
        #expect(nulls.warnings.contains { $0.code == .notHTML })
    }

    /// Random bytes without a NUL are binary by their share of control bytes alone: the line
    /// has to sit well below random data's 10.5 % (at 10 % one buffer in a hundred passed as HTML).
    @Test func randomBytesWithoutANulAreStillBinary() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let junk = (0..<1445).map { _ in UInt8.random(in: 1...255, using: &generator) }
            let isBinary = junk.withUnsafeBufferPointer { MarkupExtractor.looksBinary($0) }
            #expect(isBinary || junk.starts(with: [0xFF, 0xFE]) || junk.starts(with: [0xFE, 0xFF]), "\(junk.prefix(16))")
        }
    }

    @Test func strayControlBytesAndEscapeSequencesAreText() {
        let stray = Array("<html><body><p>price\u{01} list\u{0C}</p>".utf8) + [0x1B] + Array(String(repeating: "<p>text</p>", count: 50).utf8)
        let iso2022 = Array(String(repeating: "\u{1B}$B$3$s$K$A$O\u{1B}(B ", count: 60).utf8)
        for page in [stray, iso2022] {
            #expect(!page.withUnsafeBufferPointer { MarkupExtractor.looksBinary($0) })
        }
    }

    @Test func aTenMegabytePage() {
        let paragraph = "<p>" + String(repeating: "word ", count: 200) + "<a href=\"/p/\(0)\">link</a></p>\n"
        let html = "<html><head><title>big</title></head><body>" + String(repeating: paragraph, count: 10 * 1024 * 1024 / paragraph.utf8.count) + "</body>"
        let (page, seconds) = timed { extract(html) }
        #expect(page.title == "big")
        #expect(page.bodyText.utf8.count <= MarkupExtractor.Options().mainTextLimit + 4)
        #expect(seconds < 30)
    }

    @Test func documentsOverTheLimitAreCut() {
        var options = MarkupExtractor.Options()
        options.maximumDocumentBytes = 1000
        let html = "<title>t</title>" + String(repeating: "x", count: 5000) + "<a href=\"/late\">late</a>"
        let page = MarkupExtractor(options: options).extract(Array(html.utf8), url: WebURL("https://site.example/"))
        #expect(page.title == "t")
        #expect(page.outlinks.isEmpty)
        #expect(page.warnings.contains { $0.code == .limitReached })
    }

    @Test func manyLinksAreCapped() {
        let html = String(repeating: "<a href=\"/x\">x</a>", count: 25_000)
        let page = extract(html)
        #expect(page.outlinks.count == 1)
        #expect(page.warnings.contains { $0.message.contains("links were read") })
    }
}

/// Cases found by running a peer's test pages.
@Suite struct PeerPageTests {
    @Test func anHTMLCommentInAJSONLDScriptDoesNotLoseTheObject() {
        let page = extract("""
            <html><head><script type="application/ld+json">
            <!-- a note for the team -->
            {"@context": "https://schema.org", "@type": "Recipe", "name": "Lemon tart <!-- not a comment -->"}
            </script>
            <script type="application/ld+json"><!--
            {"@type": "Organization", "name": "Old wrapper"}
            --></script></head><body></body></html>
            """)
        #expect(page.schemaObjects.map { $0.value["@type"]?.stringValue } == ["Recipe", "Organization"])
        #expect(page.schemaObjects.first?.value["name"] == "Lemon tart <!-- not a comment -->", "inside a string it is text")
        #expect(!page.warnings.contains { $0.code == .jsonLDInvalid }, "\(page.warnings)")
    }

    @Test func scriptAndStyleTextStaysOutOfMicrodataValues() {
        let page = extract("""
            <html><body><div itemscope itemtype="https://schema.org/Product">
            <h2 itemprop="name">Trail shoe<script>var tracking = "x";</script><style>.a{color:red}</style></h2>
            <div itemprop="description">Light. <script type="application/ld+json">{"@type": "Thing"}</script>Grippy.</div>
            </div></body></html>
            """)
        let product = page.schemaObjects.first { $0.source == .microdata }
        #expect(product?.value["name"] == "Trail shoe")
        #expect(product?.value["description"] == "Light. Grippy.")
        #expect(page.schemaObjects.contains { $0.source == .jsonLD && $0.value["@type"] == "Thing" }, "the JSON-LD inside is still read")
    }
}
