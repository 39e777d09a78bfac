import Markup
import Testing

/// Every finding points at its tag: line and column (in characters) of the `<meta>` it is
/// about, of each repair inside a JSON-LD block, as an editor would show them.
@Suite struct FindingLocationTests {
    static let page = """
        <!doctype html>
        <html><head><title>T</title>
          <meta name="apple-itunes-app" content="app-id=12345678O">
        <meta property="al:ios:url" content="x://y">   <meta property="al:ios:ap_name" content="X">
        <meta
           name="twitter:card" content="app">
        <script type="application/ld+json">{"@type": "Thing", "name": "é",}</script>
        <script type="application/ld+json">
        {"@type": "Thing",
         "name": "b",,
         "url": "c",}
        </script>
        </head><body><p>é <meta property="al:web:should_fallback" content="false"></p></body></html>

        """

    func findings() -> [MarkupFinding] {
        MarkupReview.findings(MarkupExtractor().extract(Array(Self.page.utf8), url: nil))
    }

    func place(_ message: String) -> [String] {
        findings().filter { $0.message.contains(message) }.map { "\($0.line ?? 0):\($0.column ?? 0)" }
    }

    @Test func metaTagFindingsNameTheirTag() {
        #expect(place("is not a numeric App Store id") == ["3:3"])
        #expect(place("'al:ios:ap_name' is not an App Links property") == ["4:48"])
        #expect(place("al:ios has no app_store_id") == ["4:1"])
        // A tag over two lines: where its `<` is.
        #expect(place("an app card needs") == ["5:1"])
        // After a two-byte character on the line, columns still count characters.
        #expect(place("al:web:should_fallback is false") == ["13:19"])
    }

    @Test func everyJSONLDRepairIsLocatedAndSaysWhatStrictReadersDo() {
        let repairs = findings().filter { $0.message.hasPrefix("JSON-LD block") }
        #expect(repairs.map { "\($0.line ?? 0):\($0.column ?? 0)" } == ["7:67", "10:14", "11:13"], "\(repairs)")
        #expect(repairs.first?.message.contains("strict JSON readers") == true)
        #expect(repairs.map(\.message).contains { $0.hasPrefix("JSON-LD block 2, repair 2 of 2") })
    }

    @Test func theMissingStoreIDSaysTheAppIsNotOpenedEither() {
        #expect(place("even where the app is installed").count == 1)
    }
}
