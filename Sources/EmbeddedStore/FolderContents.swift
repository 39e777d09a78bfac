import Foundation
import StoreSeams

/// Lookups on a data folder's frontier by a reader that is not crawling it.
public enum FolderContents {
    /// The first URL the folder's frontier holds with a body of `digest`; nil when none does
    /// or the folder has never crawled. What `validate --data` checks duplicates with.
    public static func firstURL(dataDirectory: String, withContent digest: String) throws -> String? {
        let path = DataFolder(dataDirectory).frontierPath
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return try Frontier(readingAt: path).firstURL(withContent: digest)
    }

    /// The frontier's row for the first of `urls` it knows; nil when it knows none or the
    /// folder has never crawled. What `validate --query` says of a page not in the index.
    public static func frontierRow(dataDirectory: String, urls: [String]) throws -> FrontierRow? {
        let path = DataFolder(dataDirectory).frontierPath
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let frontier = try Frontier(readingAt: path)
        for url in urls { if let row = try frontier.row(url: url) { return row } }
        return nil
    }
}
