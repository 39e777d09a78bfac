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

    @Test func whatMayChangeIsLeftToTheNormaliser() {
        #expect(NormalizationCheck.isSurelyNFC("Crème brûlée — 50 € · 直播 · 한국어 · Привет"))
        #expect(!NormalizationCheck.isSurelyNFC("Cre\u{300}me"), "a combining mark")
        #expect(!NormalizationCheck.isSurelyNFC("\u{212B}ngström"), "a singleton (ANGSTROM SIGN)")
        #expect(!NormalizationCheck.isSurelyNFC("か\u{3099}"), "a kana voicing mark")
        #expect(!NormalizationCheck.isSurelyNFC("\u{1100}\u{1161}"), "Hangul jamo")
    }
}
