#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ItemModel
import TextUtilities

/// The one place a mapped record's templates become an item's fields: each template
/// rendered from the record's values (a value put into a URL as one URL component), numbers
/// and dates read from their text, a to-many key path's members joined with
/// ``listSeparator`` and split into keywords. Pure: `value` supplies the record. What comes
/// out is a draft: the server holds it to the item contract (`ItemRenderer` in `ingest`,
/// the service for a pushed item), and stays the judge of its validity.
public enum MappedItem {
    /// A value the item cannot hold (a rating that is no number, half a place).
    public struct Invalid: Error, Sendable, CustomStringConvertible {
        public var detail: String
        public var description: String { detail }
    }

    /// How a key path's several values are joined in text (``RecordKeyPath`` through a
    /// to-many relationship): what a keyword pattern is split at.
    public static let listSeparator = ", "

    /// The item `mapping` makes of the record `value` reads; `record` is the reference it
    /// keeps to it. Throws ``Invalid`` for a value no item can hold, and what `value` throws.
    public static func draft(_ mapping: Mapping, record: RecordReference?, now: Date, value: (RecordKeyPath) throws -> String?) throws -> SearchableItem {
        // A value put into a URL is one URL component: `Acme Corp` → `Acme%20Corp`.
        func component(_ path: RecordKeyPath) throws -> String? { try value(path).map(Unreserved.encodingOthers) }
        func text(_ name: Mapping.Field) throws -> String? { try mapping.fields[name]?.render(value) }
        func url(_ name: Mapping.Field) throws -> String? { try mapping.fields[name]?.render(component) }
        func number(_ name: Mapping.Field) throws -> Double? {
            guard let rendered = try text(name)?.trimmingASCIIWhitespace(), !rendered.isEmpty else { return nil }
            guard let number = Double(rendered), number.isFinite else { throw Invalid(detail: "\(name.rawValue) '\(rendered)': not a number") }
            return number
        }

        var item = SearchableItem(uniqueIdentifier: try mapping.uniqueIdentifier.render(value), title: try text(.title) ?? "",
                                  source: .pushed, lastUpdated: now, record: record)
        item.contentDescription = try text(.contentDescription)
        item.thumbnailURL = try url(.thumbnailURL)
        item.webURL = try url(.webURL)
        item.price = try text(.price)
        item.currency = try text(.currency)
        item.telephone = try text(.phone)
        item.address = try text(.address)
        item.contentType = try text(.contentType)
        item.bodyText = try text(.text) ?? ""
        item.domainIdentifier = try text(.domainIdentifier)
        if let scale = try number(.ratingScale) { item.ratingScale = scale }
        item.rating = try number(.rating)
        if let count = try number(.ratingCount) {
            guard let whole = Int(exactly: count) else { throw Invalid(detail: "ratingCount '\(count)': expected a whole number") }
            item.ratingCount = whole
        }
        if let date = try text(.expirationDate)?.trimmingASCIIWhitespace(), !date.isEmpty {
            guard let seconds = ISO8601.seconds(from: date) else {
                throw Invalid(detail: "expirationDate '\(date)': expected an ISO 8601 date such as 2026-12-31T00:00:00Z")
            }
            item.expirationDate = Date(timeIntervalSince1970: seconds)
        }
        switch (try number(.latitude), try number(.longitude)) {
        case (let latitude?, let longitude?): item.location = GeoPoint(latitude: latitude, longitude: longitude)
        case (nil, nil): break
        default: throw Invalid(detail: "latitude and longitude go together: one of them is empty")
        }
        // A key path through a to-many relationship lists its members joined with ", "
        // (`{#projects.title#}`): a keyword each, as CoreSpotlight apps list them.
        item.keywords = try mapping.keywords.flatMap { try $0.render(value).components(separatedBy: Self.listSeparator) }
        item.apps = try mapping.apps.map { app in
            var target = app.target
            target.deepLink = try app.deepLink?.render(component)
            return target
        }
        return item
    }
}
