import Glibc

/// Converting a page to UTF-8 with iconv when libxml2's own conversion gave up (libxml2
/// stops at the first byte sequence that is invalid in the declared charset). Invalid
/// sequences become U+FFFD and the rest of the page is kept.
enum CharsetConversion {
    struct Result {
        var bytes: [UInt8]
        var replacedSequences: Int
    }

    /// nil when iconv does not know `encoding`. The Encoding Standard's two encodings that
    /// are no iconv encodings are decoded here: `REPLACEMENT` (the whole input is one
    /// U+FFFD: the labels of encodings that cannot be decoded safely) and `X-USER-DEFINED`
    /// (ASCII as itself, 0x80–0xFF as U+F780–U+F7FF).
    static func toUTF8(_ input: UnsafeBufferPointer<UInt8>, from encoding: String) -> Result? {
        switch encoding {
        case "REPLACEMENT":
            return Result(bytes: input.isEmpty ? [] : [0xEF, 0xBF, 0xBD], replacedSequences: input.isEmpty ? 0 : 1)
        case "X-USER-DEFINED":
            var output: [UInt8] = []
            output.reserveCapacity(input.count)
            for byte in input {
                if byte < 0x80 {
                    output.append(byte)
                } else {
                    // U+F780 + (byte − 0x80) is U+F780…U+F7FF: EF 9E|9F 80…BF.
                    let scalar = 0xF780 + UInt32(byte - 0x80)
                    output += [0xEF, UInt8(0x80 | (scalar >> 6) & 0x3F), UInt8(0x80 | scalar & 0x3F)]
                }
            }
            return Result(bytes: output, replacedSequences: 0)
        default:
            break
        }
        let descriptor = iconv_open("UTF-8", encoding)
        guard descriptor != iconv_t(bitPattern: -1) else { return nil }
        defer { iconv_close(descriptor) }
        var output = [UInt8](repeating: 0, count: input.count * 4 + 16)
        var replaced = 0
        var produced = 0
        guard let inputBase = input.baseAddress else { return Result(bytes: [], replacedSequences: 0) }
        var inPointer: UnsafeMutablePointer<CChar>? = UnsafeMutablePointer(mutating: UnsafeRawPointer(inputBase).assumingMemoryBound(to: CChar.self))
        var inLeft = input.count
        output.withUnsafeMutableBufferPointer { out in
            var outPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(out.baseAddress!).assumingMemoryBound(to: CChar.self)
            var outLeft = out.count
            while inLeft > 0 {
                if iconv(descriptor, &inPointer, &inLeft, &outPointer, &outLeft) != -1 { break }
                let failure = errno
                guard failure == EILSEQ || failure == EINVAL, outLeft >= 3 else { break }
                // Replace one bad byte (EILSEQ) or a truncated final sequence (EINVAL).
                outPointer![0] = CChar(bitPattern: 0xEF)
                outPointer![1] = CChar(bitPattern: 0xBF)
                outPointer![2] = CChar(bitPattern: 0xBD)
                outPointer = outPointer! + 3
                outLeft -= 3
                replaced += 1
                if failure == EINVAL { inLeft = 0 } else {
                    inPointer = inPointer! + 1
                    inLeft -= 1
                }
                // Reset shift state for stateful encodings such as ISO-2022-JP.
                iconv(descriptor, nil, nil, nil, nil)
            }
            produced = out.count - outLeft
        }
        output.removeSubrange(produced...)
        return Result(bytes: output, replacedSequences: replaced)
    }

    /// Replaces invalid UTF-8 sequences with U+FFFD.
    static func repairUTF8(_ input: UnsafeBufferPointer<UInt8>) -> Result {
        let repaired = Array(String(decoding: input, as: UTF8.self).utf8)
        // Each replacement adds the 3-byte U+FFFD; count them in the output.
        var replaced = 0
        var i = 0
        while i + 2 < repaired.count {
            if repaired[i] == 0xEF, repaired[i + 1] == 0xBF, repaired[i + 2] == 0xBD { replaced += 1; i += 3 } else { i += 1 }
        }
        return Result(bytes: repaired, replacedSequences: replaced)
    }

    /// The longest start tag given to libxml2. Its HTML parser checks each attribute
    /// against all earlier ones of the tag, so a tag with 100,000 attributes takes minutes;
    /// 32 KB keeps the worst case well under a second.
    static let maximumTagBytes = 32 * 1024

    /// A cheap screen for ``shortenHugeTags(_:limit:)``: a start tag longer than `limit`
    /// covers at least one whole block of `limit / 2` bytes, and such a block has no `>`.
    /// One `memchr` per block, each usually stopping within a few bytes.
    static func mayContainHugeTag(_ input: UnsafeBufferPointer<UInt8>, limit: Int = maximumTagBytes) -> Bool {
        guard let base = input.baseAddress, input.count > limit else { return false }
        let block = limit / 2
        var start = 0
        while start + block <= input.count {
            if memchr(base + start, Int32(UInt8(ascii: ">")), block) == nil { return true }
            start += block
        }
        return false
    }

    /// Cuts start tags longer than `limit` bytes down to their first `limit` bytes, so that
    /// libxml2's attribute-by-attribute duplicate check stays cheap. Works on any
    /// ASCII-compatible encoding. `memchr` finds each `<` and `>`; nothing is copied unless
    /// some tag is cut (then `bytes` is the whole shortened document, else empty).
    static func shortenHugeTags(_ input: UnsafeBufferPointer<UInt8>, limit: Int = maximumTagBytes) -> (bytes: [UInt8], shortened: Int) {
        guard let base = input.baseAddress else { return ([], 0) }
        var output: [UInt8] = []
        var shortened = 0
        var copied = 0
        var i = 0
        while i < input.count, let found = memchr(base + i, Int32(UInt8(ascii: "<")), input.count - i) {
            let start = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - base
            guard start + 1 < input.count, (input[start + 1] | 0x20) >= UInt8(ascii: "a"), (input[start + 1] | 0x20) <= UInt8(ascii: "z") else {
                i = start + 1
                continue
            }
            let close = memchr(base + start + 1, Int32(UInt8(ascii: ">")), input.count - start - 1)
            let end = close.map { UnsafePointer<UInt8>($0.assumingMemoryBound(to: UInt8.self)) - base } ?? input.count
            if end - start > limit {
                if output.isEmpty { output.reserveCapacity(input.count) }
                var cut = start + limit
                while cut > start + 1, input[cut] != 0x20 { cut -= 1 }
                output.append(contentsOf: input[copied..<cut])
                output.append(UInt8(ascii: ">"))
                shortened += 1
                copied = min(end + 1, input.count)
            }
            i = end + 1
        }
        guard shortened > 0 else { return ([], 0) }
        output.append(contentsOf: input[copied...])
        return (output, shortened)
    }
}
