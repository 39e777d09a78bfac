import CIDN2
import TextUtilities
import Glibc

/// The URL Standard's host parser for special schemes (§3.5), returning the serialized
/// host: a bracketed, compressed IPv6 address; a dotted-decimal IPv4 address from any of
/// its numeric forms (`0xc0.0250.01`, `3232235521`); or a domain, percent-decoded, mapped
/// and punycoded by UTS #46 (libidn2), in lower case. Nil for what the Standard calls
/// failure: forbidden code points, invalid punycode, a domain that is empty after mapping,
/// a number out of range.
/// <https://url.spec.whatwg.org/#host-parsing>
///
/// Where libidn2's IDNA2008 is stricter than UTS #46 as the Standard uses it
/// (`CheckHyphens` and `VerifyDnsLength` off), a non-ASCII domain is refused that a browser
/// accepts (emoji labels, labels starting or ending in `-`); ASCII domains never go to
/// libidn2 and follow the Standard exactly.
enum HostParser {
    static func parse(_ input: ArraySlice<UInt8>) -> [UInt8]? {
        if input.first == UInt8(ascii: "[") {
            guard input.count >= 2, input.last == UInt8(ascii: "]"),
                let address = parseIPv6(input.dropFirst().dropLast())
            else { return nil }
            return [UInt8(ascii: "[")] + serializeIPv6(address) + [UInt8(ascii: "]")]
        }
        let domain = PercentDecoding.decode(bytes: input)
        guard let ascii = domainToASCII(domain), !ascii.isEmpty else { return nil }
        guard !ascii.contains(where: isForbiddenDomainByte) else { return nil }
        if endsInANumber(ascii) {
            guard let address = parseIPv4(ascii) else { return nil }
            return serializeIPv4(address)
        }
        return ascii
    }

    /// Forbidden domain code points: the forbidden host code points, C0 controls, `%`, DEL.
    static func isForbiddenDomainByte(_ c: UInt8) -> Bool {
        if c <= 0x20 || c == 0x7F { return true }
        switch c {
        case UInt8(ascii: "#"), UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "?"),
            UInt8(ascii: "@"), UInt8(ascii: "["), UInt8(ascii: "\\"), UInt8(ascii: "]"), UInt8(ascii: "^"), UInt8(ascii: "|"),
            UInt8(ascii: "%"):
            return true
        default:
            return false
        }
    }

    // MARK: domains

    /// "domain to ASCII" with beStrict false. An ASCII domain with no `xn--` label is
    /// lower-cased, which is what UTS #46 does to it; its `xn--` labels must be valid
    /// punycode of a valid label. Anything else goes through libidn2's UTS #46
    /// non-transitional processing (so `faß` stays `xn--fa-hia`).
    static func domainToASCII(_ domain: [UInt8]) -> [UInt8]? {
        if domain.allSatisfy({ $0 < 0x80 }) {
            let lower = domain.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
            for label in lower.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
            where label.starts(with: "xn--".utf8) {
                guard idnaToASCII(Array(label)) != nil else { return nil }
            }
            return lower
        }
        // UTF-8 decode without BOM: an invalid sequence is U+FFFD, which UTS #46 disallows.
        guard String(validating: domain, as: UTF8.self) != nil, !domain.contains(0) else { return nil }
        return idnaToASCII(domain)
    }

    private static func idnaToASCII(_ domain: [UInt8]) -> [UInt8]? {
        var output: UnsafeMutablePointer<CChar>?
        let status = (domain + [0]).withUnsafeBufferPointer { input in
            input.withMemoryRebound(to: CChar.self) { idn2_to_ascii_8z($0.baseAddress, &output, Int32(IDN2_NONTRANSITIONAL.rawValue)) }
        }
        guard status == Int32(IDN2_OK.rawValue), let output else { return nil }
        defer { idn2_free(output) }
        return Array(UnsafeRawBufferPointer(start: output, count: strlen(output)))
    }

    // MARK: IPv4

    /// "ends in a number": the last label (a trailing empty one aside) is all digits or a
    /// valid IPv4 number (`0x7f`).
    static func endsInANumber(_ ascii: [UInt8]) -> Bool {
        var parts = ascii.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        if parts.last?.isEmpty == true {
            guard parts.count > 1 else { return false }
            parts.removeLast()
        }
        guard let last = parts.last else { return false }
        if !last.isEmpty, last.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) { return true }
        return parseIPv4Number(last) != nil
    }

    static func parseIPv4(_ ascii: [UInt8]) -> UInt32? {
        var parts = ascii.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        if parts.last?.isEmpty == true, parts.count > 1 { parts.removeLast() }
        guard parts.count <= 4 else { return nil }
        var numbers: [UInt64] = []
        for part in parts {
            guard let number = parseIPv4Number(part) else { return nil }
            numbers.append(number)
        }
        guard numbers.dropLast().allSatisfy({ $0 <= 255 }), let last = numbers.last else { return nil }
        let limit = UInt64(1) << (8 * UInt64(5 - numbers.count))
        guard last < limit else { return nil }
        var address = last
        for (index, number) in numbers.dropLast().enumerated() { address += number << (8 * UInt64(3 - index)) }
        return UInt32(address)
    }

    /// Decimal, `0x` hexadecimal or `0` octal; nil for anything else (or empty). Numbers
    /// past 64 bits saturate: they are out of range either way.
    static func parseIPv4Number(_ input: ArraySlice<UInt8>) -> UInt64? {
        guard !input.isEmpty else { return nil }
        var digits = input
        var radix: UInt64 = 10
        if digits.count >= 2, digits.first == UInt8(ascii: "0"), digits.dropFirst().first.map({ $0 | 0x20 == UInt8(ascii: "x") }) == true {
            digits = digits.dropFirst(2)
            radix = 16
        } else if digits.count >= 2, digits.first == UInt8(ascii: "0") {
            digits = digits.dropFirst()
            radix = 8
        }
        var value: UInt64 = 0
        for c in digits {
            let digit: UInt64
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt64(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt64(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt64(c - UInt8(ascii: "A") + 10)
            default: return nil
            }
            guard digit < radix else { return nil }
            let (shifted, overflow) = value.multipliedReportingOverflow(by: radix)
            value = overflow ? .max : min(UInt64.max - digit, shifted) + digit
        }
        return value
    }

    static func serializeIPv4(_ address: UInt32) -> [UInt8] {
        Array([24, 16, 8, 0].map { String((address >> UInt32($0)) & 0xFF) }.joined(separator: ".").utf8)
    }

    // MARK: IPv6

    static func parseIPv6(_ input: ArraySlice<UInt8>) -> [UInt16]? {
        let bytes = Array(input)
        var address = [UInt16](repeating: 0, count: 8)
        var pieceIndex = 0
        var compress: Int?
        var pointer = 0
        func at(_ index: Int) -> UInt8? { index < bytes.count ? bytes[index] : nil }
        func hexValue(_ c: UInt8?) -> UInt16? {
            guard let c else { return nil }
            return PercentDecoding.hexValue(c).map(UInt16.init)
        }
        if at(pointer) == UInt8(ascii: ":") {
            guard at(pointer + 1) == UInt8(ascii: ":") else { return nil }
            pointer += 2
            pieceIndex += 1
            compress = pieceIndex
        }
        while let c = at(pointer) {
            guard pieceIndex < 8 else { return nil }
            if c == UInt8(ascii: ":") {
                guard compress == nil else { return nil }
                pointer += 1
                pieceIndex += 1
                compress = pieceIndex
                continue
            }
            var value: UInt16 = 0
            var length = 0
            while length < 4, let digit = hexValue(at(pointer)) {
                value = value * 16 + digit
                pointer += 1
                length += 1
            }
            if at(pointer) == UInt8(ascii: ".") {
                // An IPv4 address in the last two pieces.
                guard length > 0, pieceIndex <= 6 else { return nil }
                pointer -= length
                var numbersSeen = 0
                while let next = at(pointer) {
                    var piece: UInt16?
                    if numbersSeen > 0 {
                        guard next == UInt8(ascii: "."), numbersSeen < 4 else { return nil }
                        pointer += 1
                    }
                    guard let first = at(pointer), first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else { return nil }
                    while let digit = at(pointer), digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") {
                        let number = UInt16(digit - UInt8(ascii: "0"))
                        if let current = piece {
                            guard current != 0 else { return nil }
                            piece = current * 10 + number
                        } else {
                            piece = number
                        }
                        guard piece! <= 255 else { return nil }
                        pointer += 1
                    }
                    address[pieceIndex] = address[pieceIndex] &* 0x100 &+ piece!
                    numbersSeen += 1
                    if numbersSeen == 2 || numbersSeen == 4 { pieceIndex += 1 }
                }
                guard numbersSeen == 4 else { return nil }
                break
            } else if at(pointer) == UInt8(ascii: ":") {
                pointer += 1
                guard at(pointer) != nil else { return nil }
            } else if at(pointer) != nil {
                return nil
            }
            address[pieceIndex] = value
            pieceIndex += 1
        }
        if let compress {
            var swaps = pieceIndex - compress
            pieceIndex = 7
            while pieceIndex != 0, swaps > 0 {
                address.swapAt(pieceIndex, compress + swaps - 1)
                pieceIndex -= 1
                swaps -= 1
            }
        } else if pieceIndex != 8 {
            return nil
        }
        return address
    }

    /// Lower-case hex pieces, the first longest run of two or more zero pieces as `::`.
    static func serializeIPv6(_ address: [UInt16]) -> [UInt8] {
        var compress: Int?
        var bestLength = 1
        var index = 0
        while index < 8 {
            guard address[index] == 0 else {
                index += 1
                continue
            }
            var end = index
            while end < 8, address[end] == 0 { end += 1 }
            if end - index > bestLength {
                bestLength = end - index
                compress = index
            }
            index = end
        }
        var output = ""
        var ignoreZero = false
        for (pieceIndex, piece) in address.enumerated() {
            if ignoreZero, piece == 0 { continue }
            ignoreZero = false
            if compress == pieceIndex {
                output += pieceIndex == 0 ? "::" : ":"
                ignoreZero = true
                continue
            }
            output += String(piece, radix: 16)
            if pieceIndex != 7 { output += ":" }
        }
        return Array(output.utf8)
    }
}
