/// ISO 8601 / RFC 3339 dates as seconds since 1970, without a formatter per call (Foundation's
/// formatters are costly to build and not safe to share): `2026-12-31`,
/// `2026-12-31T08:30:00Z`, `2026-12-31T08:30:00.250+01:00`, `…T08:30Z`. Years 1970–9999.
public enum ISO8601 {
    /// The instant `text` names, or nil when it is not such a date. A date without a time
    /// is midnight UTC; a time without a zone is read as UTC.
    public static func seconds(from text: String) -> Double? {
        var bytes = Array(text.utf8)[...]
        func number(_ digits: Int) -> Int? {
            guard bytes.count >= digits else { return nil }
            var value = 0
            for byte in bytes.prefix(digits) {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            bytes = bytes.dropFirst(digits)
            return value
        }
        func take(_ character: UInt8) -> Bool {
            guard bytes.first == character else { return false }
            bytes = bytes.dropFirst()
            return true
        }
        guard let year = number(4), (1970...9999).contains(year), take(0x2D), let month = number(2), (1...12).contains(month),
            take(0x2D), let day = number(2), (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        var seconds = Double(daysSinceEpoch(year: year, month: month, day: day) * 86_400)
        guard !bytes.isEmpty else { return seconds }
        guard take(0x54) || take(0x74) || take(0x20), let hour = number(2), hour < 24, take(0x3A), let minute = number(2), minute < 60
        else { return nil }
        seconds += Double(hour * 3600 + minute * 60)
        if take(0x3A) {
            guard let second = number(2), second <= 60 else { return nil }
            seconds += Double(min(second, 59))
            if take(0x2E) || take(0x2C) {
                var scale = 0.1
                var digits = 0
                while let byte = bytes.first, (0x30...0x39).contains(byte) {
                    if digits < 9 { seconds += Double(byte - 0x30) * scale }
                    scale /= 10
                    digits += 1
                    bytes = bytes.dropFirst()
                }
                guard digits > 0 else { return nil }
            }
        }
        if bytes.isEmpty || take(0x5A) || take(0x7A) { return bytes.isEmpty ? seconds : nil }
        let sign: Double
        if take(0x2B) { sign = 1 } else if take(0x2D) { sign = -1 } else { return nil }
        guard let offsetHours = number(2), offsetHours < 24 else { return nil }
        _ = take(0x3A)
        guard let offsetMinutes = number(2), offsetMinutes < 60, bytes.isEmpty else { return nil }
        return seconds - sign * Double(offsetHours * 3600 + offsetMinutes * 60)
    }

    /// `2026-12-31T08:30:00Z` (whole seconds, UTC).
    public static func string(fromSeconds seconds: Double) -> String {
        // Years 0001 to 9999: anything outside is clamped rather than trapping on Int(_:).
        let whole = Int(min(max(seconds.isFinite ? seconds : 0, -62_135_596_800), 253_402_300_799).rounded(.down))
        var days = whole >= 0 ? whole / 86_400 : (whole - 86_399) / 86_400
        let secondOfDay = whole - days * 86_400
        // Civil from days (Howard Hinnant's algorithm).
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
        return "\(yearText)-\(two(month))-\(two(day))T\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))Z"
    }

    static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to the date (Howard Hinnant's days-from-civil).
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
