import Foundation
import Markup
import WebURL

/// Loading fixture pages byte for byte and extracting them.
enum Fixture {
    static func bytes(_ name: String) -> [UInt8] {
        let url = Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil)!
        return Array(try! Data(contentsOf: url))
    }

    static func extract(_ name: String, url: String? = nil, response: MarkupExtractor.ResponseInfo = .init()) -> PageMarkup {
        MarkupExtractor().extract(bytes(name), url: url.flatMap(WebURL.init), response: response)
    }
}

/// Extracts an inline HTML snippet.
func extract(_ html: String, url: String = "https://site.example/page", response: MarkupExtractor.ResponseInfo = .init()) -> PageMarkup {
    MarkupExtractor().extract(Array(html.utf8), url: WebURL(url), response: response)
}
