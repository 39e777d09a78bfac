/// A quick check that text is already in Unicode normalisation form C, so the costly
/// normalisation (Foundation's, through CFString and UTF-16) runs only for text that may
/// need it. Conservative: true only when every scalar lies in a block that has no
/// combining marks, no characters that compose with a following one and no singleton
/// decompositions (the Unicode NFC_QC property is Yes throughout): Latin up to U+02FF,
/// Cyrillic without its combining marks, general punctuation from U+2002, currency signs,
/// CJK punctuation and kana without the voicing marks, CJK ideographs, Hangul syllables,
/// full-width forms and emoji. Anything else — Greek, Indic scripts, combining marks,
/// jamo — answers false, and the caller normalises.
public enum NormalizationCheck {
    public static func isSurelyNFC(_ text: String) -> Bool {
        // Bytes first: ASCII and two-byte sequences led by C2…CB (U+0080…U+02FF) are fine,
        // and most text is nothing else.
        var bytes = text.utf8.makeIterator()
        var onlyLatin = true
        while let byte = bytes.next() {
            if byte < 0x80 { continue }
            guard (0xC2...0xCB).contains(byte) else {
                onlyLatin = false
                break
            }
            _ = bytes.next()
        }
        if onlyLatin { return true }
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if value < 0x300 { continue }
            switch value {
            case 0x400..<0x483, 0x48A..<0x530,
                 0x2002..<0x2070, 0x20A0..<0x20D0,
                 0x3000..<0x3099, 0x309B..<0x3100,
                 0x4E00..<0xA000, 0xAC00...0xD7A3,
                 0xFF01..<0xFFEF, 0x1F300..<0x1FB00:
                continue
            default:
                return false
            }
        }
        return true
    }
}
