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
}
