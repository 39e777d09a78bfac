import FoundationEssentials
import SearchIndex
import TextUtilities

/// The one place a mapped record becomes a ``SearchableItem``: each template rendered from
/// the record's values, text cleaned (control characters to spaces, cut at the push
/// format's limits) and every value checked as a pushed item's is (URLs, deep links,
/// ratings, dates), so an app's database can put nothing in the index that a push could
/// not. Pure: `value` supplies the record.
public enum ItemRenderer {
    public enum Outcome: Sendable {
        case item(SearchableItem)
        case skipped(IngestSkip, String?)
    }

    private struct Invalid: Error {
        var detail: String
    }

    public static func render(
        _ mapping: Mapping, record: RecordReference?, now: Date, value: (RecordKeyPath) throws -> String?
    ) throws -> Outcome {
        typealias Limits = SearchableItem.Limits
        // A value put into a URL is one URL component: `Acme Corp` → `Acme%20Corp`.
        func component(_ path: RecordKeyPath) throws -> String? { try value(path).map(Unreserved.encodingOthers) }
        func text(_ name: Mapping.Field, _ limit: Int, multiline: Bool = false) throws -> String? {
            guard let template = mapping.fields[name] else { return nil }
            let text = clean(try template.render(value), limit: limit, multiline: multiline)
            return text.isEmpty ? nil : text
        }
        func url(_ name: Mapping.Field) throws -> String? {
            guard let template = mapping.fields[name] else { return nil }
            let text = clean(try template.render(component), limit: Limits.urlBytes, multiline: false)
            if text.isEmpty { return nil }
            switch SearchableItem.acceptableURL(text) {
            case .success(let url): return url
            case .failure(let problem): throw Invalid(detail: "\(name.rawValue) '\(text)': \(problem.message)")
            }
        }
        func number(_ name: Mapping.Field, in range: ClosedRange<Double>) throws -> Double? {
            guard let rendered = try text(name, 64) else { return nil }
            guard let number = Double(rendered), number.isFinite, range.contains(number) else {
                throw Invalid(detail: "\(name.rawValue) '\(rendered)': not a number from \(range.lowerBound) to \(range.upperBound)")
            }
            return number
        }

        let identifier = clean(try mapping.uniqueIdentifier.render(value), limit: Limits.identifierBytes, multiline: false)
        guard !identifier.isEmpty else { return .skipped(.emptyIdentifier, nil) }
        guard let title = try text(.title, Limits.titleBytes) else { return .skipped(.emptyTitle, nil) }
        do {
            var item = SearchableItem(uniqueIdentifier: identifier, title: title, source: .pushed, lastUpdated: now, record: record)
            item.contentDescription = try text(.contentDescription, Limits.descriptionBytes, multiline: true)
            item.thumbnailURL = try url(.thumbnailURL)
            item.webURL = try url(.webURL)
            item.price = try text(.price, Limits.shortTextBytes)
            item.currency = try text(.currency, Limits.shortTextBytes)
            item.telephone = try text(.phone, Limits.shortTextBytes)
            item.address = try text(.address, Limits.addressBytes, multiline: true)
            item.contentType = try text(.contentType, Limits.contentTypeBytes)
            item.bodyText = try text(.text, Limits.textBytes, multiline: true) ?? ""
            if let domain = try text(.domainIdentifier, Limits.domainIdentifierBytes) {
                guard SearchableItem.isValidDomainIdentifier(domain) else {
                    throw Invalid(detail: "domainIdentifier '\(domain)': expected dot-separated labels of letters, digits, '-' and '_'")
                }
                item.domainIdentifier = domain
            }
            if let scale = try number(.ratingScale, in: 0...Limits.ratingScale) {
                guard scale > 0 else { throw Invalid(detail: "ratingScale: must be greater than 0") }
                item.ratingScale = scale
            }
            item.rating = try number(.rating, in: 0...item.ratingScale)
            if let count = try number(.ratingCount, in: 0...Double(Limits.ratingCount)) {
                guard count.rounded(.towardZero) == count else { throw Invalid(detail: "ratingCount: expected a whole number") }
                item.ratingCount = Int(count)
            }
            if let date = try text(.expirationDate, Limits.shortTextBytes) {
                guard let seconds = ISO8601.seconds(from: date), seconds <= now.timeIntervalSince1970 + Limits.lifetime else {
                    throw Invalid(detail: "expirationDate '\(date)': expected an ISO 8601 date at most ten years ahead")
                }
                item.expirationDate = Date(timeIntervalSince1970: seconds)
            }
            for template in mapping.keywords where item.keywords.count < Limits.keywords {
                let keyword = clean(try template.render(value), limit: Limits.keywordBytes, multiline: false)
                if !keyword.isEmpty { item.keywords.append(keyword) }
            }
            for app in mapping.apps.prefix(Limits.apps) {
                var target = app.target
                if let template = app.deepLink {
                    let link = clean(try template.render(component), limit: Limits.urlBytes, multiline: false)
                    if !link.isEmpty {
                        guard AppTarget.isAcceptableDeepLink(link) else {
                            throw Invalid(detail: "deep link '\(link)': expected an absolute URI such as myapp://item/42 (not javascript:, data:, vbscript: or file:)")
                        }
                        target.deepLink = link
                    }
                }
                item.apps.append(target)
            }
            return .item(item)
        } catch let invalid as Invalid {
            return .skipped(.invalidItem, invalid.detail)
        }
    }

    /// Control characters become spaces (tab and line breaks stay where text may be
    /// multi-line), surrounding whitespace goes, and the text is cut at `limit` bytes on a
    /// character boundary.
    static func clean(_ text: String, limit: Int, multiline: Bool) -> String {
        if isClean(text, limit: limit) { return text }
        var result = ""
        result.reserveCapacity(min(text.utf8.count, limit))
        var bytes = 0
        for character in text {
            var kept = character
            let scalars = character.unicodeScalars
            if scalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
                if !(multiline && scalars.allSatisfy({ $0 == "\n" || $0 == "\t" || $0 == "\r" })) { kept = " " }
            }
            let size = kept.utf8.count
            if bytes + size > limit { break }
            result.append(kept)
            bytes += size
        }
        return result.trimmingASCIIWhitespace()
    }

    /// Whether `text` needs no cleaning: within the limit, no control character (C0, DEL,
    /// or C1, which UTF-8 writes as C2 80–9F), no whitespace at either end. Bytes only, for
    /// the common case.
    private static func isClean(_ text: String, limit: Int) -> Bool {
        let utf8 = text.utf8
        guard utf8.count <= limit else { return false }
        if let first = utf8.first, first == 0x20 || (0x09...0x0D).contains(first) { return false }
        if let last = utf8.last, last == 0x20 || (0x09...0x0D).contains(last) { return false }
        var previous: UInt8 = 0
        for byte in utf8 {
            if byte < 0x20 || byte == 0x7F || (previous == 0xC2 && (0x80...0x9F).contains(byte)) { return false }
            previous = byte
        }
        return true
    }
}
