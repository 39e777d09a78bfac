import Items
/// How an item's keywords are kept in `items.keywords`: joined with ", " — the text the index
/// analyses and snippets quote — unless one of them holds a comma; then each follows a
/// U+001F, which no keyword can hold (the item contract refuses control characters), so a
/// keyword such as `salt, pepper` comes back whole. Rows written the first way read as before.
enum StoredKeywords {
    static let mark: Character = "\u{1F}"

    static func encode(_ keywords: [String]) -> String {
        guard keywords.contains(where: { $0.contains(",") }) else { return keywords.joined(separator: ", ") }
        return keywords.map { String(mark) + $0 }.joined()
    }

    static func decode(_ stored: String) -> [String] {
        let parts = stored.first == mark ? stored.split(separator: mark) : stored.split(separator: ",")
        return parts.map { $0.trimmingASCIIWhitespace() }.filter { !$0.isEmpty }
    }

    /// The keywords as the index analyses them: joined with ", ".
    static func analysed(_ stored: String) -> String {
        stored.first == mark ? decode(stored).joined(separator: ", ") : stored
    }
}
