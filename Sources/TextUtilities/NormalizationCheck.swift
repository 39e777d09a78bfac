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
    /// Over the UTF-8 bytes, decoding only what is not ASCII (a main text of 30 KB is read
    /// for every item a crawl builds; iterating scalars was 4 % of a crawl worker's CPU).
    public static func isSurelyNFC(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            // A String's bytes are valid UTF-8: a lead byte is followed by its continuations.
            var index = 0
            let count = bytes.count
            while index < count {
                let lead = bytes[index]
                if lead < 0x80 {
                    index = ByteScan.firstNonASCII(bytes, from: index)
                    continue
                }
                let value: UInt32
                if lead < 0xE0 {
                    value = UInt32(lead & 0x1F) << 6 | UInt32(bytes[index + 1] & 0x3F)
                    index += 2
                } else if lead < 0xF0 {
                    value = UInt32(lead & 0x0F) << 12 | UInt32(bytes[index + 1] & 0x3F) << 6 | UInt32(bytes[index + 2] & 0x3F)
                    index += 3
                } else {
                    value = UInt32(lead & 0x07) << 18 | UInt32(bytes[index + 1] & 0x3F) << 12 | UInt32(bytes[index + 2] & 0x3F) << 6
                        | UInt32(bytes[index + 3] & 0x3F)
                    index += 4
                }
                guard value < 0x300 || isUnchangedByNFC(value) else { return false }
            }
            return true
        }
    }

    /// Scalars from U+0300 on that NFC leaves alone whatever surrounds them (and that
    /// nothing before them combines with): the ranges named above.
    static func isUnchangedByNFC(_ value: UInt32) -> Bool {
        switch value {
        case 0x400..<0x483, 0x48A..<0x530,
             0x2002..<0x2070, 0x20A0..<0x20D0,
             0x3000..<0x3099, 0x309B..<0x3100,
             0x4E00..<0xA000, 0xAC00...0xD7A3,
             0xFF01..<0xFFEF, 0x1F300..<0x1FB00:
            true
        default:
            false
        }
    }
}
