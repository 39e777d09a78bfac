/// Durations as people write them on a command line: `90` or `90s`, `15m`, `2h`, `7d`,
/// `1w`, decimals (`1.5h`) and sums (`1h30m`).
enum DurationText {
    /// The duration in seconds, or nil when `text` is not one.
    static func seconds(_ text: String) -> Double? {
        if let plain = Double(text) { return plain.isFinite ? plain : nil }
        var total = 0.0
        var number = ""
        var sawUnit = false
        for character in text {
            if character.isASCII, character.isNumber || character == "." {
                number.append(character)
                continue
            }
            guard let value = Double(number), let unit = unitSeconds[character] else { return nil }
            total += value * unit
            number = ""
            sawUnit = true
        }
        guard number.isEmpty, sawUnit, total.isFinite else { return nil }
        return total
    }

    private static let unitSeconds: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 7 * 86_400]
}
