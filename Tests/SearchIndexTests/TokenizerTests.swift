import Items
@testable import SearchIndex
import Testing

@Suite struct TokenizerTests {
    let temporary = try! TemporaryIndex()

    @Test func chineseRunsBecomeBigramsAndUnigrams() throws {
        #expect(try temporary.index.tokens("今晚篮球直播", query: false) == [
            "今晚", "今", "晚篮", "晚", "篮球", "篮", "球直", "球", "直播", "直", "播",
        ])
        #expect(try temporary.index.tokens("篮球直播", query: true) == ["篮球", "球直", "直播"])
        #expect(try temporary.index.tokens("篮", query: true) == ["篮"])
    }

    @Test func japaneseKoreanAndMixedText() throws {
        #expect(try temporary.index.tokens("東京タワー", query: true) == ["東京", "京タ", "タワ", "ワー"])
        #expect(try temporary.index.tokens("서울 날씨", query: true) == ["서울", "날씨"])
        #expect(try temporary.index.tokens("iPhone手机 Café", query: true) == ["iphone", "手机", "cafe"])
    }

    @Test func runsOfCJKAndOtherCharactersInOneWord() throws {
        #expect(try temporary.index.tokens("a篮b", query: false) == ["a", "篮", "b"])
        #expect(try temporary.index.tokens("篮球x直", query: false) == ["篮球", "篮", "球", "x", "直"])
        #expect(try temporary.index.tokens("篮球x直", query: true) == ["篮球", "x", "直"])
        #expect(try temporary.index.tokens("x篮球直播y", query: true) == ["x", "篮球", "球直", "直播", "y"])
    }

    @Test func latinTextFoldsCaseAndDiacritics() throws {
        #expect(try temporary.index.tokens("Crème BRÛLÉE, naïve—Straße", query: false) == ["creme", "brulee", "naive", "straße"])
    }
}

/// The tokenizer reads ASCII words itself and hands only runs with other bytes to the
/// registered FTS5 tokenizer; these check that this gives exactly the tokens, positions
/// and offsets the FTS5 tokenizer gives for the whole text, and that a segment's stems
/// (worked out once per word) are those `analyze` gives for every occurrence.
@Suite struct TokenizerFastPathTests {
    let temporary = try! TemporaryIndex()

    struct Token: Equatable, CustomStringConvertible {
        var bytes: [UInt8]
        var colocated: Bool
        var start: Int
        var end: Int
        var description: String { "\(String(decoding: bytes, as: UTF8.self))\(colocated ? "+" : "")@\(start)-\(end)" }
    }

    func compare(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try temporary.index.withConnectionAndTokenizer { _, session in
            for mode in [SearchTokenizer.Session.Mode.document, .query] {
                var fast: [Token] = []
                var whole: [Token] = []
                session.tokenize(text, mode: mode) { fast.append(Token(bytes: Array($0), colocated: $1, start: $2, end: $3)) }
                session.tokenizeThroughFTS5(text, mode: mode) { whole.append(Token(bytes: Array($0), colocated: $1, start: $2, end: $3)) }
                #expect(fast == whole, "\(mode) tokens of \(text.debugDescription)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func everyASCIICharacterSeparatesOrJoinsAsInFTS5() throws {
        for byte in UInt8(1)..<0x80 {
            let c = String(UnicodeScalar(byte))
            try compare("ab\(c)CD\(c)9\(c)\(c)é\(c)x")
        }
    }

    @Test func mixedScriptsCaseAndMarks() throws {
        for text in [
            "Crème BRÛLÉE, naïve—Straße", "iPhone手机 Café", "今晚篮球直播 and NBA直播!", "東京タワー/서울 날씨", "e\u{301}cole e\u{301}",
            "a\u{A0}b\u{2003}c", "ПРИВЕТ мир-123", "emoji 🎉party🎉 ok", "x_y-z.w@q", "", "   ", "ＡＢＣ ｆｕｌｌ", "İstanbul ǅ ß ﬁ",
            String(repeating: "LongWord", count: 40) + " short",
        ] {
            try compare(text)
        }
    }

    /// Words of ASCII and plain CJK characters are split without FTS5: every such character,
    /// alone, doubled, after and before ASCII, must come out as unicode61 and the CJK split
    /// make it.
    @Test func everyPlainCJKCharacterAgreesWithFTS5() throws {
        let scalars = [0x3041...0x3096, 0x30A1...0x30FA, 0x4E00...0x9FA5, 0xAC00...0xD7A3].flatMap { $0 }.map { UnicodeScalar($0)! }
        #expect(scalars.allSatisfy { SearchTokenizer.isPlainCJK($0.value) && SearchTokenizer.isCJK($0.value) })
        var index = 0
        while index < scalars.count {
            let chunk = scalars[index..<min(index + 150, scalars.count)].map { String(Character($0)) }
            try compare(chunk.enumerated().map { offset, c in offset % 3 == 0 ? "Ab\(c)\(c)9" : offset % 3 == 1 ? c : "\(c)x\(c)" }.joined(separator: " "))
            index += 150
        }
    }

    @Test func randomTextAgreesWithFTS5() throws {
        let pieces = ["a", "Z", "q9", " ", ",", ".", "-", "_", "'", "\t", "\n", "é", "Ö", "ß", "—", "\u{A0}", "篮", "球", "タ", "서",
                      "ж", "Ж", "🎉", "\u{301}", "1", "İ", "ǅ", "&", "<", "\u{0}", "\u{7F}", "€", "ﬁ"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let text = (0..<Int.random(in: 0..<60, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            try compare(text)
        }
    }

    /// The builder's postings equal the counts `analyze` yields token by token (words and
    /// their colocated stems, weighted by column), for text whose words repeat.
    @Test func builderStemsMatchAnalyze() throws {
        let body = "Running runs ran; the runner RUNNING flexibility Flexibilities caféS 篮球直播 running 12 12s"
        try temporary.index.withConnectionAndTokenizer { _, session in
            for language in [nil, "en", "de", "zh", "xx"] as [String?] {
                let columns = ["Runners running", "running, runs", "", body]
                var expected: [[UInt8]: UInt32] = [:]
                var expectedLength = 0
                let stemmer = session.stemmers.language(language)
                for (column, text) in columns.enumerated() {
                    var first = true
                    session.analyze(text, language: stemmer) { token, colocated, _, _ in
                        if !colocated || first { expectedLength += 1 }
                        first = false
                        expected[Array(token), default: 0] += UInt32(BM25.columnWeights[column])
                    }
                }
                let builder = SegmentBuilder()
                _ = builder.analyze(columns: ["filler words running"], tokenizer: session, language: language)
                let length = builder.analyze(columns: columns, tokenizer: session, language: language)
                #expect(length == expectedLength)
                var found: [[UInt8]: UInt32] = [:]
                for (term, ordinal, frequency) in builder.postings() where ordinal == 1 { found[term] = frequency }
                #expect(found == expected, "language \(language ?? "default")")
            }
        }
    }
}
