import Foundation
import ItemModel

/// An item's attributes by CoreSpotlight's names (`CSSearchableItemAttributeSet`), for code
/// written against CoreSpotlight: ``SearchableItem/init(uniqueIdentifier:domainIdentifier:attributeSet:)``
/// makes the item they describe.
public struct SearchableItemAttributeSet: Sendable, Hashable {
    /// The kind of thing (`public.recipe`, `Product`…): CoreSpotlight's content type.
    public var contentType: String?
    public var title: String
    public var contentDescription: String?
    public var keywords: [String] = []
    public var thumbnailURL: URL?
    /// The web page the item mirrors: what a tap opens without the app.
    public var webURL: URL?
    public var rating: Double?
    public var ratingScale: Double = 5
    public var latitude: Double?
    public var longitude: Double?
    public var phoneNumbers: [String] = []
    public var expirationDate: Date?
    /// The item's text, for recall.
    public var textContent: String?

    public init(contentType: String? = nil, title: String) {
        self.contentType = contentType
        self.title = title
    }
}

extension SearchableItem {
    /// The item `attributeSet` describes, CoreSpotlight's `CSSearchableItem(uniqueIdentifier:domainIdentifier:attributeSet:)`.
    public init(uniqueIdentifier: String, domainIdentifier: String?, attributeSet: SearchableItemAttributeSet) {
        self.init(uniqueIdentifier: uniqueIdentifier, domainIdentifier: domainIdentifier, contentType: attributeSet.contentType,
                  title: attributeSet.title, contentDescription: attributeSet.contentDescription, keywords: attributeSet.keywords,
                  thumbnailURL: attributeSet.thumbnailURL?.absoluteString, webURL: attributeSet.webURL?.absoluteString,
                  rating: attributeSet.rating, ratingScale: attributeSet.ratingScale, telephone: attributeSet.phoneNumbers.first,
                  bodyText: attributeSet.textContent ?? "", expirationDate: attributeSet.expirationDate)
        if let latitude = attributeSet.latitude, let longitude = attributeSet.longitude {
            location = GeoPoint(latitude: latitude, longitude: longitude)
        }
    }
}
