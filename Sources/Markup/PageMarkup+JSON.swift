import FoundationEssentials
import TextUtilities
import JSON
import WebURL

// The JSON form of PageMarkup (`searchlight extract --json`): every field, in a fixed
// order, with null for what the page does not have.

extension PageMarkup: JSONRepresentable {
    public var json: JSONValue {
        .object(JSONObject([
            ("url", url?.string.json ?? .null),
            ("baseURL", baseURL?.string.json ?? .null),
            ("charset", charset.json),
            ("title", title.json),
            ("metaDescription", metaDescription.json),
            ("keywords", keywords.json),
            ("language", language.json),
            ("canonicalURL", canonicalURL?.string.json ?? .null),
            ("headline", headline.json),
            ("robots", robots.json),
            ("hreflangAlternates", .array(hreflangAlternates.map { ["hreflang": .string($0.hreflang), "url": .string($0.url.string)] })),
            ("icons", icons.json),
            ("smartAppBanner", smartAppBanner.json),
            ("appLinks", appLinks.json),
            ("twitterCard", twitterCard.json),
            ("appAlternates", appAlternates.json),
            ("openGraph", openGraph.json),
            ("schema", schema.json),
            ("schemaObjects", schemaObjects.json),
            ("outlinks", outlinks.json),
            ("bodyText", .string(bodyText)),
            ("visibleText", .string(visibleText)),
            ("warnings", warnings.json),
            ("scripts", .object(JSONObject([
                ("count", JSONValue(scriptSignals.scripts)), ("external", JSONValue(scriptSignals.externalScripts)),
                ("emptyMountPoint", scriptSignals.emptyMountPoint.json),
            ]))),
        ]))
    }
}

extension CharsetDecision: JSONRepresentable {
    public var json: JSONValue {
        ["encoding": .string(encoding), "source": .string(source.rawValue), "declaredLabel": declaredLabel.json]
    }
}

extension RobotsDirectives: JSONRepresentable {
    public var json: JSONValue {
        .object(JSONObject([
            ("noindex", .bool(noindex)), ("nofollow", .bool(nofollow)), ("nosnippet", .bool(nosnippet)),
            ("noarchive", .bool(noarchive)), ("noimageindex", .bool(noimageindex)), ("notranslate", .bool(notranslate)),
            ("maxSnippet", maxSnippet.json), ("maxImagePreview", maxImagePreview.json), ("maxVideoPreview", maxVideoPreview.json),
            ("unavailableAfter", unavailableAfter.json), ("noindexSources", .array(noindexSources.map(JSONValue.string))),
            ("unavailableAfterDate", unavailableAfterDate.map { .string(ISO8601.string(fromSeconds: $0.timeIntervalSince1970)) } ?? .null),
        ]))
    }
}

extension PageIcon: JSONRepresentable {
    public var json: JSONValue {
        ["rel": .string(rel), "url": .string(url.string), "sizes": sizes.json, "type": type.json]
    }
}

extension SmartAppBanner: JSONRepresentable {
    public var json: JSONValue {
        .object(JSONObject([
            ("appID", appID.json), ("appStoreID", appStoreID.json), ("appArgument", appArgument.json),
            ("affiliateData", affiliateData.json), ("appClipBundleID", appClipBundleID.json),
            ("appClipDisplay", appClipDisplay.json),
            ("otherParameters", .array(otherParameters.map { ["key": .string($0.key), "value": .string($0.value)] })),
            ("content", .string(content)),
        ]))
    }
}

extension AppLinks: JSONRepresentable {
    public var json: JSONValue {
        .object(JSONObject([
            ("targets", .array(targets.map { target in
                .object(JSONObject([
                    ("platform", .string(target.platform.rawValue)), ("url", target.url.json),
                    ("appStoreID", target.appStoreID.json), ("package", target.package.json),
                    ("class", target.className.json), ("appID", target.appID.json), ("appName", target.appName.json),
                ]))
            })),
            ("webURL", webURL.json), ("unknownProperties", .array(unknownProperties.map(JSONValue.string))),
            ("shouldFallbackToWeb", .bool(shouldFallbackToWeb)),
        ]))
    }
}

extension TwitterCard: JSONRepresentable {
    public var json: JSONValue {
        .object(JSONObject([
            ("card", card.json), ("site", site.json), ("title", title.json), ("description", description.json),
            ("image", image.json), ("appCountry", appCountry.json),
            ("apps", .array(apps.map { app in
                ["platform": .string(app.platform.rawValue), "name": app.name.json, "id": app.id.json, "url": app.url.json]
            })),
        ]))
    }
}

extension AppAlternate: JSONRepresentable {
    public var json: JSONValue {
        .object(JSONObject([
            ("platform", .string(platform.rawValue)), ("href", .string(href)), ("appID", .string(appID)),
            ("scheme", scheme.json), ("host", host.json), ("path", path.json), ("deepLink", deepLink.json),
        ]))
    }
}

extension OpenGraph: JSONRepresentable {
    public var json: JSONValue {
        func media(_ list: [Media]) -> JSONValue {
            .array(list.map { m in
                .object(JSONObject([
                    ("url", m.url.json), ("secureURL", m.secureURL.json), ("type", m.type.json),
                    ("width", m.width.json), ("height", m.height.json), ("alt", m.alt.json),
                ]))
            })
        }
        return .object(JSONObject([
            ("title", title.json), ("type", type.json), ("url", url.json), ("description", description.json),
            ("siteName", siteName.json), ("locale", locale.json), ("localeAlternates", localeAlternates.json),
            ("determiner", determiner.json), ("images", media(images)), ("videos", media(videos)), ("audios", media(audios)),
            ("properties", .array(properties.map { ["property": .string($0.name), "content": .string($0.content)] })),
        ]))
    }
}

extension SchemaObject: JSONRepresentable {
    public var json: JSONValue {
        ["source": .string(source.rawValue), "value": .object(value)]
    }
}

extension SchemaSummary: JSONRepresentable {
    public var json: JSONValue {
        func action(_ a: Action) -> JSONValue {
            .object(JSONObject([
                ("type", .string(a.type)),
                ("targets", .array(a.targets.map { ["urlTemplate": .string($0.urlTemplate), "platforms": $0.platforms.json] })),
                ("queryInput", a.queryInput.json),
            ]))
        }
        return .object(JSONObject([
            ("types", types.json), ("name", name.json), ("description", description.json), ("images", images.json),
            ("rating", rating.map { r in
                ["value": .init(r.value), "count": r.count.json, "best": r.best.json, "worst": r.worst.json]
            } ?? .null),
            ("offer", offer.map { o in
                ["price": o.price.json, "currency": o.currency.json, "availability": o.availability.json]
            } ?? .null),
            ("telephone", telephone.json),
            ("address", address.map { a in
                .object(JSONObject([
                    ("street", a.street.json), ("locality", a.locality.json), ("region", a.region.json),
                    ("postalCode", a.postalCode.json), ("country", a.country.json), ("formatted", .string(a.formatted)),
                ]))
            } ?? .null),
            ("coordinates", coordinates.map { ["latitude": .init($0.latitude), "longitude": .init($0.longitude)] } ?? .null),
            ("interactions", .array(interactions.map { ["type": .string($0.type), "count": .init($0.count)] })),
            ("mediaURL", mediaURL.json),
            ("searchAction", searchAction.map(action) ?? .null),
            ("actions", .array(actions.map(action))),
            ("deepLinks", .array(deepLinks.map { link in
                .object(JSONObject([
                    ("platform", .string(link.platform.rawValue)), ("url", .string(link.url)), ("appID", link.appID.json),
                    ("actionType", .string(link.actionType)),
                ]))
            })),
        ]))
    }
}

extension Outlink: JSONRepresentable {
    public var json: JSONValue {
        .object(JSONObject([
            ("url", .string(url.string)), ("text", .string(text)), ("rel", rel.names.json), ("element", .string(element.rawValue)),
        ]))
    }
}

extension ExtractionWarning: JSONRepresentable {
    public var json: JSONValue {
        ["code": .string(code.rawValue), "message": .string(message), "line": line.json, "column": column.json]
    }
}
