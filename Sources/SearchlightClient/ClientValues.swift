import Foundation
import ItemModel
import JSON
import SearchModel

extension SearchableIndex {
    /// Items and deletions of one stream (``SearchableIndex/beginBatch(named:expectedClientState:)``),
    /// committed together by ``SearchableIndex/endBatch(_:clientState:)``.
    public struct Batch: Sendable {
        public let name: String
        /// The stream's stored state this batch follows; nil for the stream's first batch.
        public let expectedClientState: String?
        public private(set) var items: [SearchableItem] = []
        public private(set) var deletions: [String] = []

        init(name: String, expectedClientState: String?) {
            self.name = name
            self.expectedClientState = expectedClientState
        }

        /// Adds items to the batch: written when it ends, replacing items of the same identifier.
        public mutating func indexSearchableItems(_ items: [SearchableItem]) { self.items += items }
        /// Adds deletions to the batch: the caller's items of these identifiers, deleted when it ends.
        public mutating func deleteSearchableItems(withIdentifiers identifiers: [String]) { deletions += identifiers }
    }
}

/// A search's answer and its engagement token (what a client without a key reports
/// engagement with).
public struct SearchResults: Sendable {
    public var response: SearchResponse
    public var engagementToken: String?
}

/// What a person did with a result.
public struct EngagementEvent: Sendable, Equatable {
    /// Seen in a list of results, or tapped.
    public enum Kind: String, Sendable {
        case impression, click
    }

    /// The item's identifier.
    public var identifier: String
    public var kind: Kind

    public init(identifier: String, kind: Kind) {
        self.identifier = identifier
        self.kind = kind
    }

    var json: JSONValue { ["id": .string(identifier), "type": .string(kind.rawValue)] }
}

/// An activity a device reports as eligible for public indexing (NSUserActivity's
/// `activityType`, `title`, `webpageURL`, `keywords`), with the device's own id (stored only
/// as a salted hash).
public struct PublicActivity: Sendable {
    public var activityType: String
    public var title: String
    public var webpageURL: URL
    public var keywords: [String]
    public var deviceIdentifier: String

    public init(activityType: String, title: String, webpageURL: URL, keywords: [String] = [], deviceIdentifier: String) {
        self.activityType = activityType
        self.title = title
        self.webpageURL = webpageURL
        self.keywords = keywords
        self.deviceIdentifier = deviceIdentifier
    }

    var json: JSONValue {
        .object(JSONObject([
            ("activityType", .string(activityType)), ("title", .string(title)), ("webpageURL", .string(webpageURL.absoluteString)),
            ("keywords", .array(keywords.map(JSONValue.string))), ("deviceId", .string(deviceIdentifier)),
        ]))
    }
}

/// Where one of the caller's ingested items came from: the record reference it was pushed
/// with, and the record itself when the server ingested that database for the caller.
public struct ItemSource: Sendable {
    public var identifier: String
    public var reference: RecordReference
    public var record: JSONValue?
}
