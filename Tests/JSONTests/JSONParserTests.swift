import JSON
import Testing

@Suite struct StrictJSONTests {
    @Test func readsEveryValueKindAndKeepsOrder() throws {
        let value = try JSONParser.parse(#"{"z": 1, "a": [true, false, null, -0.5e3, "x\u00e9\n"], "m": {"k": 19.90}}"#)
        let object = try #require(value.objectValue)
        #expect(object.keys == ["z", "a", "m"])
        #expect(value["a"] == [true, false, nil, .number("-0.5e3"), "xé\n"])
        // Numbers keep their literal text.
        #expect(value["m"]?["k"] == .number("19.90"))
        #expect(JSONWriter.string(value) == #"{"z":1,"a":[true,false,null,-0.5e3,"xé\n"],"m":{"k":19.90}}"#)
    }

    @Test func decodesSurrogatePairs() throws {
        #expect(try JSONParser.parse(#""\ud83c\udf4b lemon""#) == "🍋 lemon")
    }

    @Test(arguments: [
        #"{"a": 1,}"#, #"[1, 2,]"#, #"{'a': 1}"#, #"{a: 1}"#, "// c\n{}", #"{"a": 01}"#, #"{"a": .5}"#, "{\"a\": \"x\ny\"}",
        #"{"a": 1} extra"#, "", #"{"a": "\x"}"#, #"[1 2]"#, "NaN", #"{"a": 1"#,
    ])
    func rejectsWhatRFC8259Rejects(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(text) }
    }

    @Test func errorsSayWhere() {
        do {
            _ = try JSONParser.parse("{\n  \"a\": [1,\n  2,,]\n}")
            Issue.record("expected an error")
        } catch {
            #expect(error.line == 3)
            #expect(error.description.contains("line 3"))
        }
    }

    @Test func refusesNestingBeyondTheLimit() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONParser.parse(deep) }
        let lenient = JSONParser.parseLenient(deep)
        #expect(lenient.error?.message.contains("nesting") == true)
    }

    @Test func writerEscapesControlCharactersAndPrettyPrints() {
        let value: JSONValue = ["s": "a\"b\\c\u{01}/é", "n": nil, "e": [], "o": [:]]
        #expect(JSONWriter.string(value) == #"{"s":"a\"b\\c\u0001/é","n":null,"e":[],"o":{}}"#)
        #expect(JSONWriter.string(["a": [1, 2]], style: .pretty) == "{\n  \"a\": [\n    1,\n    2\n  ]\n}")
        // Escapes at the ends, side by side, and between long plain runs; every string reads back.
        for text in ["\"", "\\\"\u{7F}\t", "\nplain", "plain\r", String(repeating: "直播 ", count: 3000) + "\"" + String(repeating: "x", count: 5000), ""] {
            let written = JSONWriter.string(.string(text))
            #expect((try? JSONParser.parse(written))?.stringValue == text)
        }
        #expect(JSONWriter.string(.string("\u{7F}\"")) == #""\u007f\"""#)
    }
}

@Suite struct LenientJSONTests {
    @Test func repairsWhatPublishersWrite() throws {
        let text = """
            <!--
            {
              // a comment
              "@type": 'Product',
              name: "Shoe",
              "description": "two
            lines",
              "offers": [{"price": "9.90",},],
              "flag": True, "gone": undefined,
              /* block */ "escape": "\\q"
            }
            -->
            """
        let result = JSONParser.parseLenient(text)
        #expect(result.error == nil)
        let value = try #require(result.values.first)
        #expect(value["@type"] == "Product")
        #expect(value["name"] == "Shoe")
        #expect(value["description"] == "two\nlines")
        #expect(value["offers"]?.asList.first?["price"] == "9.90")
        #expect(value["flag"] == true)
        #expect(value["gone"] == .null)
        #expect(value["escape"] == "q")
        #expect(result.repairs.count >= 6)
        #expect(result.repairs.contains { $0.message.contains("trailing comma") })
    }

    @Test func keepsWhatWasReadBeforeAnError() throws {
        let result = JSONParser.parseLenient(#"{"name": "Kept", "price": 5, "broken": @@@ }"#)
        #expect(result.error != nil)
        let value = try #require(result.values.first)
        #expect(value["name"] == "Kept")
        #expect(value["price"] == 5)
    }

    @Test func closesATruncatedDocument() throws {
        let result = JSONParser.parseLenient(#"{"a": [1, 2, {"b": "c"#)
        #expect(result.error == nil)
        #expect(result.values.first?["a"]?.asList.count == 3)
        #expect(result.values.first?["a"]?.asList.last?["b"] == "c")
    }

    @Test func readsSeveralValuesAndSkipsStrayClosers() {
        let result = JSONParser.parseLenient(#"{"a": 1}} ; {"b": 2}"#)
        #expect(result.values == [["a": 1], ["b": 2]])
    }

    /// Junk gives an error where it starts, or a repaired value that says what was repaired;
    /// never a trap, never a value that was not there.
    @Test(arguments: [
        ("\u{0}\u{1}\u{2}", nil, 0),
        ("}}}}", nil, 0),
        ("\u{FFFD}{", nil, 0),
        ("{\"a\":", "{}", 5),
        ("[[[[", "[[[[]]]]", nil),
        ("\"", #""""#, nil),
        ("'", #""""#, nil),
    ] as [(String, String?, Int?)])
    func junkGivesAnErrorOrARepair(_ junk: String, _ value: String?, _ errorOffset: Int?) {
        let result = JSONParser.parseLenient(junk)
        #expect(result.values.map { JSONWriter.string($0) } == (value.map { [$0] } ?? []))
        #expect(result.error?.offset == errorOffset)
        if errorOffset == nil { #expect(!result.repairs.isEmpty, "a repaired value lists its repairs") }
    }

    @Test func nestingPastTheLimitStopsWithAnError() {
        let result = JSONParser.parseLenient(String(repeating: "{\"a\":", count: 5000))
        #expect(result.error?.message == "nesting deeper than 256 levels")
        #expect(result.error?.offset == 1280)
    }
}
