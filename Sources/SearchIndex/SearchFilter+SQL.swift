import SQLite
import SearchModel

extension SearchFilter {
    /// The SQL condition on `items` and its arguments, in order, for every part but ``near``
    /// (a circle is answered by ``PlaceGrid``).
    var condition: (sql: String, arguments: [SQLiteValue]) {
        var parts: [String] = []
        var arguments: [SQLiteValue] = []
        if let owner {
            parts.append("owner = ?")
            arguments.append(.text(owner))
        }
        if let domain {
            parts.append("(domain = ? OR substr(domain, -length(?) - 1) = '.' || ?)")
            arguments += Array(repeating: .text(domain), count: 3)
        }
        if let domainIdentifier {
            parts.append("(domain_id = ? OR substr(domain_id, 1, length(?) + 1) = ? || '.')")
            arguments += Array(repeating: .text(domainIdentifier), count: 3)
        }
        if let contentType {
            parts.append("content_type = ?")
            arguments.append(.text(contentType))
        }
        if let openedBy {
            // No app at all: nothing passes (an empty IN list is not SQL).
            let marks = openedBy.isEmpty ? "NULL" : Array(repeating: "?", count: openedBy.count).joined(separator: ",")
            // An installed app that a tap opens (``TapAction/resolve(for:platform:installed:)``):
            // with a deep link, or a universal link to the item's web page. An app named by a
            // banner without a link opens nothing: its item is not "opened by" it.
            parts.append("""
                EXISTS (SELECT 1 FROM json_each(items.apps) WHERE json_extract(value, '$.platform') = ? AND (json_extract(value, '$.appStoreId') IN (\(marks))
                OR json_extract(value, '$.bundleId') IN (\(marks)) OR json_extract(value, '$.package') IN (\(marks)))
                AND (json_extract(value, '$.deepLink') IS NOT NULL OR (json_extract(value, '$.universalLink') = 1 AND items.web_url IS NOT NULL)))
                """)
            arguments.append(.text((hasApp ?? .ios).rawValue))
            for _ in 0..<3 { arguments += openedBy.map(SQLiteValue.text) }
        } else if let hasApp {
            parts.append("EXISTS (SELECT 1 FROM json_each(items.apps) WHERE json_extract(value, '$.platform') = ?)")
            arguments.append(.text(hasApp.rawValue))
        }
        return (parts.isEmpty ? "1" : parts.joined(separator: " AND "), arguments)
    }
}
