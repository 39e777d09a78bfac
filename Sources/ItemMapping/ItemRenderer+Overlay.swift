import FoundationEssentials
import JSON
import SearchIndex

extension ItemRenderer {
    /// A crawled page's item with the fields a mapping defines rendered from the page's
    /// schema.org object: title, description, keywords, thumbnail, rating, price, phone,
    /// address… and the mapping's apps added. The item keeps its identifier and web URL
    /// (the page's canonical URL, by which the crawler and ownership know it); a field that
    /// renders empty or invalid keeps the page's own value.
    public static func overlay(_ mapping: Mapping, on item: SearchableItem, object: JSONObject, now: Date) -> SearchableItem {
        var fixed = mapping
        fixed.uniqueIdentifier = Template(literal: item.uniqueIdentifier)
        if fixed.fields[.title] == nil { fixed.fields[.title] = Template(literal: item.title) }
        fixed.fields[.webURL] = nil
        guard let outcome = try? render(fixed, record: nil, now: now, value: { JSONObjectPaths.text(of: $0, in: object) }),
            case .item(let rendered) = outcome
        else { return item }
        var result = item
        let fields = mapping.fields
        if fields[.title] != nil { result.title = rendered.title }
        if fields[.contentDescription] != nil, let text = rendered.contentDescription { result.contentDescription = text }
        if !mapping.keywords.isEmpty, !rendered.keywords.isEmpty { result.keywords = rendered.keywords }
        if fields[.thumbnailURL] != nil, let url = rendered.thumbnailURL { result.thumbnailURL = url }
        if fields[.rating] != nil, let rating = rendered.rating {
            result.rating = rating
            result.ratingScale = rendered.ratingScale
        }
        if fields[.ratingCount] != nil, let count = rendered.ratingCount { result.ratingCount = count }
        if fields[.price] != nil, let price = rendered.price { result.price = price }
        if fields[.currency] != nil, let currency = rendered.currency { result.currency = currency }
        if fields[.phone] != nil, let phone = rendered.telephone { result.telephone = phone }
        if fields[.address] != nil, let address = rendered.address { result.address = address }
        if fields[.contentType] != nil, let type = rendered.contentType { result.contentType = type }
        if fields[.text] != nil, !rendered.bodyText.isEmpty { result.bodyText = rendered.bodyText }
        if let location = rendered.location { result.location = location }
        for var app in rendered.apps where !result.apps.contains(where: { $0.platform == app.platform && $0.identity == app.identity }) {
            app.evidence = .schemaAction
            result.apps.append(app)
        }
        return result
    }
}
