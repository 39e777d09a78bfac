import Foundation
import SearchIndex

/// A fresh index in a temporary folder.
final class TemporaryIndex {
    let directory: URL
    let index: SearchIndex

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("searchindex-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        index = try SearchIndex(path: directory.appendingPathComponent("index.sqlite").path)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    func ids(_ query: String, limit: Int = 10, now: Date = Date()) throws -> [String] {
        try index.search(SearchRequest(query, limit: limit, now: now)).hits.map(\.item.uniqueIdentifier)
    }
}

func item(_ id: String, _ title: String, description: String? = nil, keywords: [String] = [], body: String = "",
          domain: String? = nil, web: String? = nil, apps: [AppTarget] = [], expires: Date? = nil, updated: Date = Date(),
          language: String? = nil) -> SearchableItem
{
    SearchableItem(uniqueIdentifier: id, domainIdentifier: domain, title: title, contentDescription: description, keywords: keywords,
                   webURL: web, apps: apps, bodyText: body, expirationDate: expires, lastUpdated: updated, language: language)
}
