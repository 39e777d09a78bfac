import FoundationEssentials
import Items
import JSON

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
        func attempt(_ mapping: Mapping) -> SearchableItem? {
            guard case .item(let rendered) = try? render(mapping, record: nil, now: now, value: { JSONObjectPaths.text(of: $0, in: object) })
            else { return nil }
            return rendered.item
        }
        guard let rendered = attempt(fixed) ?? attempt(Self.withoutFailingParts(fixed, title: Template(literal: item.title), attempt))
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

    /// `mapping` without the parts that do not render on their own (a rating that is no
    /// number, a deep link a scheme rule refuses): each field (latitude and longitude as a
    /// pair), the keywords and the apps tried alone with the title (the page's own `title`
    /// when the mapping's renders empty), so one bad part leaves the page its own value there
    /// and the rest of the mapping still applies.
    private static func withoutFailingParts(_ mapping: Mapping, title: Template, _ attempt: (Mapping) -> SearchableItem?) -> Mapping {
        var bare = mapping
        bare.fields = mapping.fields.filter { $0.key == .title }
        if attempt(bare) == nil { bare.fields[.title] = title }
        bare.keywords = []
        bare.apps = []
        var kept = bare
        for (field, template) in mapping.fields where field != .title && kept.fields[field] == nil {
            var alone = bare
            alone.fields[field] = template
            let partner: Mapping.Field? = field == .latitude ? .longitude : field == .longitude ? .latitude : nil
            if let partner, let other = mapping.fields[partner] { alone.fields[partner] = other }
            if attempt(alone) != nil { alone.fields.forEach { kept.fields[$0.key] = $0.value } }
        }
        var keywords = bare
        keywords.keywords = mapping.keywords
        if attempt(keywords) != nil { kept.keywords = mapping.keywords }
        for app in mapping.apps {
            var alone = bare
            alone.apps = [app]
            if attempt(alone) != nil { kept.apps.append(app) }
        }
        return kept
    }
}
