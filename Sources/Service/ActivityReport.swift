import Foundation
import JSON
import SearchIndex
import WebURL

/// One device's report of a public activity (the NSUserActivity model with
/// `isEligibleForPublicIndexing`): what the user looked at in the app, with the web page
/// that shows the same thing. It becomes a searchable item only once enough distinct
/// devices reported it; the device id is never stored, only its salted hash.
struct ActivityReport {
    var activityType: String
    var title: String
    var webpageURL: String
    var keywords: [String]
    var contentDescription: String?
    var thumbnailURL: String?
    var deviceID: String
    var apps: [AppTarget]

    /// Reads a report with the limits of a pushed item (``SearchableItem/Limits``).
    init(_ body: FieldReader) throws(FieldError) {
        typealias Limits = SearchableItem.Limits
        activityType = try body.requiredString("activityType", maximumBytes: 256)
        title = try body.requiredString("title", maximumBytes: Limits.titleBytes)
        guard let url = try SearchableItem.url(body, "webpageURL") else {
            throw FieldError(path: "body.webpageURL", "required, an absolute http(s) URL")
        }
        webpageURL = url
        keywords = try body.strings("keywords", maximumCount: Limits.keywords, maximumBytes: Limits.keywordBytes)
        contentDescription = try body.string("contentDescription", maximumBytes: Limits.descriptionBytes, multiline: true)
        thumbnailURL = try SearchableItem.url(body, "thumbnailURL")
        deviceID = try body.requiredString("deviceId", maximumBytes: 256)
        var apps: [AppTarget] = []
        for (index, value) in (try body.array("apps", maximumCount: Limits.apps) ?? []).enumerated() {
            apps.append(try AppTarget(pushed: value, path: "body.apps[\(index)]"))
        }
        self.apps = apps
    }

    /// The item's id: one per activity type and page, whoever reported it.
    var itemID: String { "activity:" + activityType + ":" + webpageURL }

    /// The searchable item, as of this report, held to the item contract; it lives
    /// ``SearchableItem/defaultLifetime`` past the last report.
    func item(owner: String, now: Date) throws(SearchableItem.Problem) -> SearchableItem {
        try SearchableItem(
            uniqueIdentifier: itemID, contentType: activityType, title: title, contentDescription: contentDescription, keywords: keywords,
            thumbnailURL: thumbnailURL, webURL: webpageURL, apps: apps, source: .activity, owner: owner, lastUpdated: now
        ).validated(.pushed, now: now)
    }
}
