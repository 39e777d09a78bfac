import FoundationEssentials
import Items
import TextUtilities

/// A digest of everything an ingested item puts in the index (not its time of writing): an
/// item whose digest did not change since the last run is not written again.
enum ItemDigest {
    /// - Parameter givenExpiration: the expiration the contract gave an item whose record
    ///   names none (`now` plus the sink's lifetime): a time of writing, left out.
    static func of(_ item: SearchableItem, givenExpiration: Date? = nil) -> Int64 {
        var digest = FNV1a()
        for text in [item.uniqueIdentifier, item.title] { digest.add(text) }
        for text in [item.domainIdentifier, item.contentType, item.contentDescription, item.thumbnailURL, item.webURL, item.price,
                     item.currency, item.telephone, item.address]
        {
            if let text { digest.add(text) } else { digest.add([0xFE]) }
        }
        digest.add(Int64(item.keywords.count))
        for keyword in item.keywords { digest.add(keyword) }
        let numbers: [Double?] = [item.rating, item.ratingScale, item.ratingCount.map(Double.init),
                                 item.expirationDate == givenExpiration ? nil : item.expirationDate?.timeIntervalSince1970]
        for number in numbers {
            digest.add(Int64(bitPattern: number?.bitPattern ?? 0x7FF8_DEAD_0000_0001))
        }
        digest.add(Int64(item.apps.count))
        for app in item.apps {
            for text in [app.platform.rawValue, app.appStoreID, app.bundleID, app.package, app.name, app.deepLink] {
                if let text { digest.add(text) } else { digest.add([0xFE]) }
            }
        }
        digest.add([item.allowsWebFallback ? 1 : 0])
        digest.add(item.bodyText)
        for text in [item.record?.name, item.record?.entity, item.record?.key, item.owner] {
            if let text { digest.add(text) } else { digest.add([0xFE]) }
        }
        return digest.signed
    }
}
