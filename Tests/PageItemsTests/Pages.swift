import Foundation
import Markup
import WebURL

/// Fixture pages shared with the Markup tests.
enum Pages {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("MarkupTests/Fixtures/pages")

    static func markup(_ name: String, url: String) -> PageMarkup {
        let bytes = Array(try! Data(contentsOf: folder.appendingPathComponent(name)))
        return MarkupExtractor().extract(bytes, url: WebURL(url))
    }
}
