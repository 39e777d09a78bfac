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

    /// Whole seconds in the largest unit that divides them: `7d`, `2h`, `15m`, `90s`.
    static func text(_ seconds: Double) -> String {
        let whole = Int(seconds)
        guard Double(whole) == seconds, whole > 0 else { return "\(seconds)s" }
        for (unit, size) in [("d", 86_400), ("h", 3600), ("m", 60)] where whole % size == 0 {
            return "\(whole / size)\(unit)"
        }
        return "\(whole)s"
    }

    private static let unitSeconds: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 7 * 86_400]
}
