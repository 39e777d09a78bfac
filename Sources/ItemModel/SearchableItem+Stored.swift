#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSON

extension SearchableItem {
    /// Every field, for a store that keeps items as documents (PostgreSQL's `items` table)
    /// and hands them back exactly: unlike ``json`` (the push format), it keeps the body
    /// text, the source, the owner, the apps' evidence and the times.
    public var storedJSON: JSONValue {
        .object(JSONObject(omittingNils: [
            "uniqueIdentifier": .string(uniqueIdentifier), "domainIdentifier": domainIdentifier.map(JSONValue.string),
            "contentType": contentType.map(JSONValue.string), "title": .string(title),
            "contentDescription": contentDescription.map(JSONValue.string), "keywords": .array(keywords.map(JSONValue.string)),
            "thumbnailURL": thumbnailURL.map(JSONValue.string), "webURL": webURL.map(JSONValue.string),
            "rating": rating.map { JSONValue($0) }, "ratingScale": JSONValue(ratingScale), "ratingCount": ratingCount.map { JSONValue($0) },
            "price": price.map(JSONValue.string), "currency": currency.map(JSONValue.string),
            "telephone": telephone.map(JSONValue.string), "address": address.map(JSONValue.string),
            "apps": .array(apps.map(\.storedJSON)), "allowsWebFallback": .bool(allowsWebFallback), "bodyText": .string(bodyText),
            "expirationDate": expirationDate.map { JSONValue($0.timeIntervalSince1970) }, "source": .string(source.rawValue),
            "owner": owner.map(JSONValue.string), "lastUpdated": JSONValue(lastUpdated.timeIntervalSince1970),
            "record": record?.json, "language": language.map(JSONValue.string), "rendered": rendered ? .bool(true) : nil,
            "latitude": location.map { JSONValue($0.latitude) }, "longitude": location.map { JSONValue($0.longitude) },
        ]))
    }

    /// Reads ``storedJSON`` back; nil when it is not an item the index wrote.
    public init?(stored value: JSONValue) {
        guard let id = value["uniqueIdentifier"]?.stringValue, let title = value["title"]?.stringValue,
            let source = value["source"]?.stringValue.flatMap(Source.init(rawValue:))
        else { return nil }
        let apps = JSONWriter.string(value["apps"] ?? .array([]))
        self.init(
            uniqueIdentifier: id, domainIdentifier: value["domainIdentifier"]?.stringValue, contentType: value["contentType"]?.stringValue,
            title: title, contentDescription: value["contentDescription"]?.stringValue,
            keywords: value["keywords"]?.arrayValue?.compactMap(\.stringValue) ?? [], thumbnailURL: value["thumbnailURL"]?.stringValue,
            webURL: value["webURL"]?.stringValue, rating: value["rating"]?.doubleValue, ratingScale: value["ratingScale"]?.doubleValue ?? 5,
            ratingCount: value["ratingCount"]?.intValue, price: value["price"]?.stringValue, currency: value["currency"]?.stringValue,
            telephone: value["telephone"]?.stringValue, address: value["address"]?.stringValue, apps: AppTarget.decodeStored(apps),
            allowsWebFallback: value["allowsWebFallback"]?.boolValue ?? true, bodyText: value["bodyText"]?.stringValue ?? "",
            expirationDate: value["expirationDate"]?.doubleValue.map(Date.init(timeIntervalSince1970:)), source: source,
            owner: value["owner"]?.stringValue,
            lastUpdated: Date(timeIntervalSince1970: value["lastUpdated"]?.doubleValue ?? 0),
            record: value["record"].flatMap(RecordReference.init(json:)), language: value["language"]?.stringValue)
        rendered = value["rendered"]?.boolValue ?? false
        if let latitude = value["latitude"]?.doubleValue, let longitude = value["longitude"]?.doubleValue,
            GeoPoint(latitude: latitude, longitude: longitude).isValid
        {
            location = GeoPoint(latitude: latitude, longitude: longitude)
        }
    }
}
