extension String {
    /// The longest start of the string that is at most `bytes` bytes of UTF-8 and ends on a
    /// character's first scalar boundary: a cut that never splits a character's bytes.
    public func prefix(utf8Bytes bytes: Int) -> String {
        guard utf8.count > bytes else { return self }
        var end = utf8.index(utf8.startIndex, offsetBy: max(0, bytes))
        while end > startIndex, end.samePosition(in: unicodeScalars) == nil { end = utf8.index(before: end) }
        return String(self[..<end])
    }
}
