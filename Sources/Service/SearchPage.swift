import HTTPServer
import HTTPTypes
import ServiceAPI

/// The search page `serve` answers a browser with at `/`: a page, its script and its style
/// sheet, all compiled into the binary (no CDN, works offline). The page talks only to
/// this service's own API (`/v1/search`, `/v1/engagement`), which its Content-Security-Policy
/// enforces; result text is put into the page as text nodes, never as markup.
enum SearchPage {
    /// The page's own files by path; nil for any other path, which the API then answers.
    /// Whether `path` is one of the page's own.
    static func serves(_ path: String) -> Bool { ["/", "/search.js", "/search.css"].contains(path) }

    static func response(to request: HTTPServerRequest) -> HTTPServerResponse? {
        guard request.method == "GET" || request.method == "HEAD" else { return nil }
        let (body, type): (String, String)
        switch request.path {
        case "/": (body, type) = (html, "text/html; charset=utf-8")
        case "/search.js": (body, type) = (script, "text/javascript; charset=utf-8")
        case "/search.css": (body, type) = (style, "text/css; charset=utf-8")
        default: return nil
        }
        return HTTPServerResponse(status: 200, contentType: type, body: Array(body.utf8), headers: headers)
    }

    /// Thumbnails come from the sites that were crawled, so images may load from anywhere;
    /// everything else only from this origin.
    static let headers = [
        HTTPField("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src * data:; "
            + "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"),
        HTTPField("X-Content-Type-Options", "nosniff"),
        HTTPField("Referrer-Policy", "no-referrer"),
        HTTPField("Cache-Control", "no-cache"),
    ]
}
