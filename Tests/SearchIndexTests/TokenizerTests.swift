import SearchIndex
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

    @Test func latinTextFoldsCaseAndDiacritics() throws {
        #expect(try temporary.index.tokens("Crème BRÛLÉE, naïve—Straße", query: false) == ["creme", "brulee", "naive", "straße"])
    }
}
