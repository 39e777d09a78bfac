import Foundation
import Testing
import TextUtilities

/// The small rules every module leans on, checked against Foundation or the specification
/// where one exists.
@Suite struct TextUtilitiesTests {
    /// Every 37th day from 1970 to 9999 (and each leap day), at a time with seconds,
    /// written and read back, and the writing compared with Foundation's formatter.
    @Test func iso8601DatesRoundTripAndMatchFoundation() {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        var seconds = 0.0
        while seconds < 253_402_300_799 {
            let text = ISO8601.string(fromSeconds: seconds + 45_296)
            #expect(text == formatter.string(from: Date(timeIntervalSince1970: seconds + 45_296)))
            #expect(ISO8601.seconds(from: text) == seconds + 45_296, "\(text)")
            seconds += 37 * 86_400
        }
        for year in stride(from: 1972, through: 9996, by: 4) {
            let leap = year % 100 != 0 || year % 400 == 0
            #expect((ISO8601.seconds(from: "\(year)-02-29") != nil) == leap, "\(year)-02-29")
        }
    }

    @Test func iso8601ReadsTheFormsPagesWriteAndRefusesTheRest() {
        #expect(ISO8601.seconds(from: "2026-12-31") == 1_798_675_200)
        #expect(ISO8601.seconds(from: "2026-12-31T08:30Z") == 1_798_705_800)
        #expect(ISO8601.seconds(from: "2026-12-31t08:30:00z") == 1_798_705_800)
        #expect(ISO8601.seconds(from: "2026-12-31 08:30:00") == 1_798_705_800, "no zone: UTC")
        #expect(ISO8601.seconds(from: "2026-12-31T09:30:00+01:00") == 1_798_705_800)
        #expect(ISO8601.seconds(from: "2026-12-31T03:00:00-0530") == 1_798_705_800)
        #expect(ISO8601.seconds(from: "2026-12-31T08:30:00.250Z") == 1_798_705_800.25)
        #expect(ISO8601.seconds(from: "2016-12-31T23:59:60Z") == ISO8601.seconds(from: "2016-12-31T23:59:59Z"), "a leap second")
        for bad in ["", "2026", "2026-13-01", "2026-02-29", "2026-04-31", "1969-12-31", "2026-12-31T24:00Z", "2026-12-31T08:60Z",
                    "2026-12-31T08:30:00.Z", "2026-12-31T08:30:00+24:00", "2026-12-31T08:30:00Zjunk", "２０２６-12-31"] {
            #expect(ISO8601.seconds(from: bad) == nil, "\(bad)")
        }
        #expect(ISO8601.string(fromSeconds: .infinity) == "1970-01-01T00:00:00Z")
        #expect(ISO8601.string(fromSeconds: 1e300) == "9999-12-31T23:59:59Z", "clamped, no trap")
        #expect(ISO8601.string(fromSeconds: -1e300) == "0001-01-01T00:00:00Z")
    }

    /// FNV-1a's published 64-bit test vectors.
    @Test func fnv1aMatchesThePublishedVectors() {
        #expect(FNV1a.hash([UInt8]()) == 0xcbf2_9ce4_8422_2325)
        #expect(FNV1a.hash("a".utf8) == 0xaf63_dc4c_8601_ec8c)
        #expect(FNV1a.hash("foobar".utf8) == 0x8594_4171_f739_67e8)
        var fields = FNV1a()
        fields.add("ab")
        fields.add("c")
        var other = FNV1a()
        other.add("a")
        other.add("bc")
        #expect(fields.value != other.value, "fields added one after another do not run into each other")
    }

    /// RFC 3986 §2.3, against Foundation's encoder with the same allowed set.
    @Test func unreservedEncodingMatchesFoundation() {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        allowed.insert(charactersIn: "-._~")
        for text in ["Acme Corp", "a&b=c#d/e?f", "100%", "café ☕", "~user_name-1.0", "", "+ \u{0}\u{7F}"] {
            #expect(Unreserved.encodingOthers(text) == text.addingPercentEncoding(withAllowedCharacters: allowed), "\(text)")
        }
        #expect((0...255).filter { Unreserved.contains(UInt8($0)) }.count == 66)
    }

    @Test func percentDecodingKeepsWhatIsNotAnEscape() {
        #expect(PercentDecoding.bytes("a%20b%2Fc") == Array("a b/c".utf8))
        #expect(PercentDecoding.bytes("100%") == Array("100%".utf8))
        #expect(PercentDecoding.bytes("%zz%4") == Array("%zz%4".utf8))
        #expect(PercentDecoding.bytes("a+b", plusIsSpace: true) == Array("a b".utf8))
        #expect(PercentDecoding.bytes("a+b") == Array("a+b".utf8))
    }

    @Test func storeIDsDomainsWhitespaceAndSuggestions() {
        #expect(AppStoreID.normalize(" id1234567890 ") == "1234567890")
        #expect(AppStoreID.normalize("ID42") == "42")
        #expect(AppStoreID.normalize("12345678O") == nil)
        #expect(AppStoreID.normalize("١٢٣") == nil, "Arabic-Indic digits are not an App Store id")
        #expect(AppStoreID.normalize(String(repeating: "9", count: 21)) == nil)
        #expect(ReverseDNS.name(forHost: "recipes.example") == "example.recipes")
        #expect(" \t\n a b \r\n".trimmingASCIIWhitespace() == "a b")
        #expect("\u{A0}a\u{A0}".trimmingASCIIWhitespace() == "\u{A0}a\u{A0}", "only ASCII whitespace")
        #expect(Suggestion.distance("titel", "title") == 2, "Levenshtein: a transposition is two edits")
        #expect(Suggestion.distance("", "abc") == 3 && Suggestion.distance("kitten", "sitting") == 3)
        #expect(Suggestion.nearest(to: "titelPattern", in: ["titlePattern", "thumbnailPattern"]) == "titlePattern")
        #expect(Suggestion.nearest(to: "zzzz", in: ["titlePattern"]) == nil)
    }

    @Test func utf8ValidationAgreesWithTheStandardLibrary() {
        let samples: [[UInt8]] = [
            Array("plain".utf8), Array("é☕𝄞".utf8), [0xC3], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
            [0xE2, 0x82], [0xFF], [0xEF, 0xBB, 0xBF, 0x41],
        ]
        for bytes in samples {
            let valid = bytes.withUnsafeBufferPointer { isValidUTF8($0) }
            #expect(valid == (String(validating: bytes, as: UTF8.self) != nil), "\(bytes)")
        }
    }
}

/// The word-at-a-time scans find exactly the byte a plain loop finds, wherever it sits
/// relative to the eight-byte words, whatever bytes surround it.
@Suite struct ByteScanTests {
    @Test func scansAgreeWithAByteLoop() {
        var generator = SystemRandomNumberGenerator()
        let interesting: [UInt8] = [0x00, 0x09, 0x1F, 0x20, 0x41, 0x7E, 0x7F, 0x80, 0x9F, 0xA0, 0xC1, 0xC2, 0xC3, 0xE2, 0xFF]
        for round in 0..<6_000 {
            let count = Int.random(in: 0...40, using: &generator)
            // Half the rounds over printable ASCII, half over the bytes of multi-byte text too.
            let plain: ClosedRange<UInt8> = round % 2 == 0 ? 0x20...0x7E : 0x20...0xFF
            var bytes = (0..<count).map { _ in
                var byte = UInt8.random(in: plain, using: &generator)
                while byte == 0x7F || byte == 0xC2 { byte = UInt8.random(in: plain, using: &generator) }
                return byte
            }
            for _ in 0..<Int.random(in: 0...2, using: &generator) where count > 0 {
                bytes[Int.random(in: 0..<count, using: &generator)] = interesting.randomElement(using: &generator)!
            }
            let start = Int.random(in: 0...count, using: &generator)
            bytes.withUnsafeBufferPointer { buffer in
                let nonASCII = (start..<count).first { bytes[$0] >= 0x80 } ?? count
                let candidate = (start..<count).first { bytes[$0] < 0x20 || bytes[$0] == 0x7F || bytes[$0] == 0xC2 } ?? count
                #expect(ByteScan.firstNonASCII(buffer, from: start) == nonASCII, "\(bytes) from \(start)")
                #expect(ByteScan.firstControlCandidate(buffer, from: start) == candidate, "\(bytes) from \(start)")
            }
        }
    }

    /// What a page could make a terminal do, written out instead; JSON escaped so stays JSON.
    @Test func terminalTextEscapesC0DelC1AndBidiControls() {
        #expect(TerminalText.escaped("plain café 直播") == "plain café 直播")
        #expect(TerminalText.escaped("\u{1B}[2J\u{1B}]0;owned\u{7}") == "\\u001b[2J\\u001b]0;owned\\u0007")
        #expect(TerminalText.escaped("a\u{7F}b\u{9B}c\u{85}") == "a\\u007fb\\u009bc\\u0085")
        #expect(TerminalText.escaped("\u{202E}txt.exe\u{2066}\u{200F}\u{61C}") == "\\u202etxt.exe\\u2066\\u200f\\u061c")
        #expect(TerminalText.escaped("one\ntwo\tthree\r") == "one\\u000atwo\\u0009three\\u000d")
        #expect(TerminalText.escaped("one\ntwo\tthree\r", keepingLines: true) == "one\ntwo\tthree\\u000d")
    }

    /// The one set of controls no item text or request name holds, found on bytes: it agrees
    /// with the per-scalar rule on every scalar from U+0000 to U+00FF and on wider text.
    @Test func controlsOnBytesAgreeWithTheScalarRule() {
        for value in UInt32(0)...0xFF {
            let scalar = Unicode.Scalar(value)!
            let text = "ab" + String(Character(scalar)) + "直播"
            let lineBreak = scalar == "\t" || scalar == "\n" || scalar == "\r"
            #expect(TerminalText.containsC0DELOrC1(text, allowingLineBreaks: false) == TerminalText.isC0DELOrC1(scalar), "U+\(value)")
            #expect(TerminalText.containsC0DELOrC1(text, allowingLineBreaks: true) == (TerminalText.isC0DELOrC1(scalar) && !lineBreak), "U+\(value)")
        }
        #expect(!TerminalText.containsC0DELOrC1(String(repeating: "直播 café ", count: 40), allowingLineBreaks: false))
        #expect(TerminalText.containsC0DELOrC1(String(repeating: "直播 café ", count: 40) + "\u{9B}", allowingLineBreaks: true))
    }
}
