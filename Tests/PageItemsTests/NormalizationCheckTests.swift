import Foundation
import Testing
import TextUtilities

/// The quick NFC check may only say yes where normalisation would change nothing.
@Suite struct NormalizationCheckTests {
    @Test func everyScalarItAcceptsIsAlreadyNFC() {
        var accepted = 0
        for value in UInt32(0)..<0x20000 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = String(Character(scalar))
            guard NormalizationCheck.isSurelyNFC(text) else { continue }
            accepted += 1
            #expect(text.precomposedStringWithCanonicalMapping.unicodeScalars.elementsEqual(text.unicodeScalars), "U+\(String(value, radix: 16))")
        }
        #expect(accepted > 30_000)
    }

    /// Read over bytes, every scalar of every length (1–4 bytes) is decoded right, alone and
    /// between others.
    @Test func theByteReadingAgreesWithTheScalars() {
        func expected(_ text: String) -> Bool {
            text.unicodeScalars.allSatisfy { scalar in
                switch scalar.value {
                case 0..<0x300, 0x400..<0x483, 0x48A..<0x530, 0x2002..<0x2070, 0x20A0..<0x20D0, 0x3000..<0x3099, 0x309B..<0x3100,
                     0x4E00..<0xA000, 0xAC00...0xD7A3, 0xFF01..<0xFFEF, 0x1F300..<0x1FB00: return true
                default: return false
                }
            }
        }
        var mismatches = 0
        for value in stride(from: UInt32(0), to: 0x110000, by: 7) {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = "a" + String(Character(scalar)) + "é直"
            if NormalizationCheck.isSurelyNFC(text) != expected(text) { mismatches += 1 }
        }
        #expect(mismatches == 0)
        #expect(NormalizationCheck.isSurelyNFC(String(repeating: "Привет 直播 🎉 ", count: 2000)))
        #expect(!NormalizationCheck.isSurelyNFC(String(repeating: "Привет 直播 🎉 ", count: 2000) + "e\u{301}"))
        #expect(NormalizationCheck.isSurelyNFC(""))
    }

    @Test func whatMayChangeIsLeftToTheNormaliser() {
        #expect(NormalizationCheck.isSurelyNFC("Crème brûlée — 50 € · 直播 · 한국어 · Привет"))
        #expect(!NormalizationCheck.isSurelyNFC("Cre\u{300}me"), "a combining mark")
        #expect(!NormalizationCheck.isSurelyNFC("\u{212B}ngström"), "a singleton (ANGSTROM SIGN)")
        #expect(!NormalizationCheck.isSurelyNFC("か\u{3099}"), "a kana voicing mark")
        #expect(!NormalizationCheck.isSurelyNFC("\u{1100}\u{1161}"), "Hangul jamo")
    }
}
