extension String {
    /// The string without leading and trailing ASCII whitespace (space, tab, CR, LF, FF).
    @inlinable
    public func trimmingASCIIWhitespace() -> String {
        var copy = self
        let bounds = copy.withUTF8 { trimmedBounds($0) }
        guard let bounds else { return "" }
        if bounds.lowerBound == 0, bounds.upperBound == utf8.count { return self }
        return copy.withUTF8 { String(decoding: UnsafeBufferPointer(rebasing: $0[bounds]), as: UTF8.self) }
    }
}

extension Substring {
    /// The substring without leading and trailing ASCII whitespace, as a String.
    @inlinable
    public func trimmingASCIIWhitespace() -> String {
        var copy = self
        return copy.withUTF8 { bytes in
            guard let bounds = trimmedBounds(bytes) else { return "" }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[bounds]), as: UTF8.self)
        }
    }
}

/// The range of `bytes` without ASCII whitespace at either end; nil when nothing is left.
@inlinable
func trimmedBounds(_ bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
    var lower = 0
    var upper = bytes.count
    while lower < upper, isASCIIWhitespace(bytes[lower]) { lower += 1 }
    while upper > lower, isASCIIWhitespace(bytes[upper - 1]) { upper -= 1 }
    return lower < upper ? lower..<upper : nil
}

/// Space, tab, line feed, carriage return or form feed: HTML's ASCII whitespace.
@inlinable @inline(__always)
public func isASCIIWhitespace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C
}

extension StringProtocol {
    /// Where `needle` first occurs, comparing ASCII letters without regard to case (the
    /// rule for URL parameter names, header names and the like); other bytes must match.
    public func rangeOfASCIICaseInsensitive(_ needle: String) -> Range<Index>? {
        let haystack = Array(utf8), pattern = Array(needle.utf8)
        guard !pattern.isEmpty, haystack.count >= pattern.count else { return nil }
        func lower(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }
        for start in 0...(haystack.count - pattern.count)
        where (0..<pattern.count).allSatisfy({ lower(haystack[start + $0]) == lower(pattern[$0]) }) {
            let lower = utf8.index(utf8.startIndex, offsetBy: start)
            return lower..<utf8.index(lower, offsetBy: pattern.count)
        }
        return nil
    }
}
