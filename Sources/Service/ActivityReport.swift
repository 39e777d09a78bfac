import Foundation
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

    init(_ body: FieldReader) throws(SearchIndexError) {
        activityType = try body.requiredString("activityType")
        title = try body.requiredString("title")
        guard let url = try body.url("webpageURL") else { throw .invalidItem("body.webpageURL: required, an absolute http(s) URL") }
        webpageURL = url
        keywords = try body.strings("keywords")
        contentDescription = try body.string("contentDescription")
        thumbnailURL = try body.url("thumbnailURL")
        deviceID = try body.requiredString("deviceId")
        guard activityType.utf8.count <= 256, deviceID.utf8.count <= 256, title.utf8.count <= 1024 else {
            throw .invalidItem("body: activityType and deviceId take at most 256 bytes, title 1024")
        }
        var apps: [AppTarget] = []
        for (index, value) in (try body.array("apps") ?? []).enumerated() {
            apps.append(try AppTarget(pushed: value, path: "body.apps[\(index)]"))
        }
        self.apps = apps
    }

    /// The item's id: one per activity type and page, whoever reported it.
    var itemID: String { "activity:" + activityType + ":" + webpageURL }

    /// The searchable item, as of this report; it lives a month past the last one.
    func item(owner: String, now: Date) -> SearchableItem {
        SearchableItem(
            uniqueIdentifier: itemID, contentType: activityType, title: title, contentDescription: contentDescription, keywords: keywords,
            thumbnailURL: thumbnailURL, webURL: webpageURL, apps: apps, expirationDate: now.addingTimeInterval(30 * 86_400),
            source: .activity, owner: owner, lastUpdated: now)
    }
}
