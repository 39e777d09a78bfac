import Foundation
import Items
import JSON
import ServiceAPI
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

    /// Reads a report; what becomes the item's is checked by the item contract
    /// (``item(owner:now:)``), the page URL first, since the report is counted by it.
    init(_ body: FieldReader) throws(FieldError) {
        activityType = try body.requiredString("activityType", maximumBytes: 256)
        title = try body.requiredText("title")
        switch SearchableItem.acceptableURL(try body.requiredText("webpageURL")) {
        case .success(let url): webpageURL = url
        case .failure(let problem): throw FieldError(path: "body.webpageURL", problem.message)
        }
        keywords = try body.texts("keywords")
        contentDescription = try body.text("contentDescription")
        thumbnailURL = try body.text("thumbnailURL")
        deviceID = try body.requiredString("deviceId", maximumBytes: 256)
        var apps: [AppTarget] = []
        for (index, value) in (try body.array("apps", maximumCount: .max) ?? []).enumerated() {
            apps.append(try AppTarget(pushed: value, path: "body.apps[\(index)]"))
        }
        self.apps = apps
    }

    /// The item's id: one per activity type and page, whoever reported it.
    var itemID: String { "activity:" + activityType + ":" + webpageURL }

    /// The searchable item, as of this report, held to the item contract; it lives
    /// ``SearchableItem/defaultLifetime`` past the last report.
    func item(owner: String, now: Date) throws(FieldError) -> ValidItem {
        do {
            return try SearchableItem(
            uniqueIdentifier: itemID, contentType: activityType, title: title, contentDescription: contentDescription, keywords: keywords,
            thumbnailURL: thumbnailURL, webURL: webpageURL, apps: apps, source: .activity, owner: owner, lastUpdated: now
            ).validated(.pushed, now: now)
        } catch {
            throw FieldError(path: "body." + error.field, error.message)
        }
    }
}
