import ItemModel
import SearchModel

/// `/v1/search`'s names for a filter's parts, both ways.
extension SearchFilter {
    /// The filter's query parameters (`/v1/search`'s names), in a fixed order; ``openedBy``
    /// is the request's own installed apps there (`installedOnly=1`).
    public var queryParameters: [(String, String)] {
        var parameters: [(String, String)] = []
        if let owner { parameters.append(("owner", owner)) }
        if let domain { parameters.append(("domain", domain)) }
        if let domainIdentifier { parameters.append(("domainIdentifier", domainIdentifier)) }
        if let contentType { parameters.append(("contentType", contentType)) }
        if let hasApp, openedBy == nil { parameters.append(("hasApp", hasApp.rawValue)) }
        if openedBy != nil { parameters.append(("installedOnly", "1")) }
        if let near { parameters += [("near", near.center.parameter), ("radius", "\(near.radius)")] }
        return parameters
    }

    /// The names of ``queryParameters``.
    public static let parameterNames: Set<String> = ["owner", "domain", "domainIdentifier", "contentType", "hasApp", "installedOnly", "near", "radius"]

    /// Reads the filter from query parameters (`value(name)` gives a parameter's value, nil
    /// when it is absent); a domain is read in lower case.
    public init(parameters value: (String) -> String?) throws(SearchIndexError) {
        self.init(owner: value("owner"), domain: value("domain")?.lowercased(), domainIdentifier: value("domainIdentifier"),
                  contentType: value("contentType"))
        if let platform = value("hasApp") {
            guard let parsed = AppTarget.Platform(rawValue: platform) else { throw .invalidQuery("hasApp must be ios or android", field: "hasApp") }
            hasApp = parsed
        }
        near = try Self.circle(near: value("near"), radius: value("radius"))
        try validate()
    }

    /// `near=lat,lng` and `radius=km` (``GeoCircle/defaultRadius`` when absent); a radius
    /// without a place is an error.
    static func circle(near: String?, radius: String?) throws(SearchIndexError) -> GeoCircle? {
        guard let near else {
            if radius != nil { throw .invalidQuery("radius needs near=latitude,longitude", field: "radius") }
            return nil
        }
        guard let center = GeoPoint(parameter: near) else {
            throw .invalidQuery("near must be latitude,longitude in degrees, such as 48.8566,2.3522", field: "near")
        }
        guard let radius else { return GeoCircle(center: center) }
        guard radius.utf8.count <= 32, let kilometres = Double(radius), kilometres.isFinite, kilometres > 0, kilometres <= GeoCircle.maximumRadius else {
            throw .invalidQuery("radius must be a number of kilometres, more than 0 and at most \(Int(GeoCircle.maximumRadius))", field: "radius")
        }
        return GeoCircle(center: center, radius: kilometres)
    }
}
