/// App Store ids as pages write them.
public enum AppStoreID {
    /// Apple's ids have 9 or 10 digits today; room to grow, not to abuse.
    public static let maximumDigits = 20

    /// `1234567890`, `id1234567890` → `1234567890`; anything not numeric, or longer than
    /// ``maximumDigits``, → nil.
    public static func normalize(_ value: String) -> String? {
        var v = Substring(value.trimmingASCIIWhitespace())
        if v.lowercased().hasPrefix("id") { v = v.dropFirst(2) }
        guard !v.isEmpty, v.utf8.count <= maximumDigits, v.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return String(v)
    }
}
