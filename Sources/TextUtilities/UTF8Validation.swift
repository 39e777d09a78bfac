/// Whether bytes are well-formed UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing
/// past U+10FFFF, no truncated sequence.
@inlinable
public func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    var i = 0
    let n = bytes.count
    while i < n {
        let lead = bytes[i]
        if lead < 0x80 {
            i += 1
            continue
        }
        let width: Int
        var lower: UInt8 = 0x80
        var upper: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: width = 2
        case 0xE0: width = 3; lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: width = 3
        case 0xED: width = 3; upper = 0x9F
        case 0xF0: width = 4; lower = 0x90
        case 0xF1...0xF3: width = 4
        case 0xF4: width = 4; upper = 0x8F
        default: return false
        }
        guard i + width <= n, (lower...upper).contains(bytes[i + 1]) else { return false }
        for k in 2..<max(2, width) where bytes[i + k] & 0xC0 != 0x80 { return false }
        i += width
    }
    return true
}
