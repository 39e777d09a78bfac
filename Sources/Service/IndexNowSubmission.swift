import FoundationEssentials
import JSON
import ServiceAPI
import WebURL

/// One IndexNow notice (indexnow.org): a site says these URLs of its host were added,
/// updated or deleted, and proves it is the site with a key it also serves as a text file.
/// `GET /indexnow?url=&key=[&keyLocation=]` gives one URL, `POST /indexnow`
/// `{"host", "key", "keyLocation"?, "urlList"}` up to ``Limits/urls``. Reading is pure and
/// strict; every refusal is the status the protocol names (400 a bad form, 422 a URL of
/// another host or a key outside the key rule).
public struct IndexNowSubmission: Sendable, Equatable {
    /// The host every URL is on, lower case, without a port.
    public var host: String
    public var key: String
    /// Where the key file is: `keyLocation` as given, else `/{key}.txt` at the first URL's
    /// origin (the protocol's `https://{host}/{key}.txt` for an https site).
    public var keyLocation: WebURL
    /// In the order given, each once.
    public var urls: [WebURL]

    public enum Limits {
        /// "You can submit up to 10,000 URLs per post."
        public static let urls = 10_000
        public static let urlBytes = 2048
        /// "A minimum of 8 and a maximum of 128" characters.
        public static let keyCharacters = 8...128
        /// Origins (scheme and port) of the host one notice may name: each is looked up in the
        /// crawl's store, so a notice of URLs on 10,000 ports must not cost 10,000 lookups.
        public static let origins = 4
    }

    /// The POST body's fields.
    static let fields: Set<String> = ["host", "key", "keyLocation", "urlList"]

    /// `GET /indexnow`'s parameters (`value(name)` gives one, nil when absent).
    init(query value: (String) -> String?) throws(APIError) {
        guard let url = value("url") else { throw APIError(400, "bad-request", "url is required (the URL that changed)") }
        guard let key = value("key") else { throw APIError(400, "bad-request", "key is required (your IndexNow key)") }
        try self.init(host: nil, key: key, keyLocation: value("keyLocation"), urls: [url])
    }

    /// A notice from a POST body's JSON, read as `POST /indexnow` reads it (unknown and
    /// repeated fields refused): what the fuzz target feeds strangers' bytes to.
    public static func reading(json value: JSONValue) throws -> IndexNowSubmission {
        let reader = try FieldReader(value: value, path: "body")
        try reader.rejectUnknown(fields)
        try reader.rejectDuplicates()
        return try IndexNowSubmission(body: reader)
    }

    /// A notice from `GET /indexnow`'s parameters.
    public static func reading(query value: (String) -> String?) throws(APIError) -> IndexNowSubmission {
        try IndexNowSubmission(query: value)
    }

    /// `POST /indexnow`'s body.
    init(body: FieldReader) throws(APIError) {
        do {
            try self.init(host: try body.requiredString("host", maximumBytes: 253), key: try body.requiredString("key", maximumBytes: 256),
                          keyLocation: try body.string("keyLocation", maximumBytes: Limits.urlBytes),
                          urls: try body.strings("urlList", maximumCount: Limits.urls, maximumBytes: Limits.urlBytes))
        } catch let error as APIError {
            throw error
        } catch let error as FieldError {
            throw APIError(400, "bad-request", error.description)
        } catch {
            throw APIError(400, "bad-request", "\(error)")
        }
    }

    private init(host given: String?, key: String, keyLocation: String?, urls texts: [String]) throws(APIError) {
        guard Self.isValidKey(key) else {
            throw APIError(422, "invalid-key", "the key must be \(Limits.keyCharacters.lowerBound) to \(Limits.keyCharacters.upperBound) letters, digits and '-'")
        }
        guard !texts.isEmpty else { throw APIError(400, "bad-request", "urlList is empty") }
        var urls: [WebURL] = []
        var seen = Set<WebURL>()
        for text in texts {
            guard text.utf8.count <= Limits.urlBytes, let url = WebURL(text), !url.hasUserInfo else {
                throw APIError(400, "invalid-url", "'\(text.prefix(200))' is not an absolute http(s) URL of at most \(Limits.urlBytes) bytes")
            }
            if seen.insert(url.withoutFragment).inserted { urls.append(url.withoutFragment) }
        }
        let host = given.map { Self.hostName($0.lowercased()) } ?? urls[0].host
        guard !host.isEmpty else { throw APIError(400, "bad-request", "host is empty") }
        if let stranger = urls.first(where: { $0.host != host }) {
            throw APIError(422, "url-not-of-host", "\(stranger.string.prefix(200)) is not on \(host): a notice lists URLs of its own host only")
        }
        let location: WebURL
        if let keyLocation {
            guard let url = WebURL(keyLocation), !url.hasUserInfo else {
                throw APIError(400, "invalid-url", "keyLocation '\(keyLocation.prefix(200))' is not an absolute http(s) URL")
            }
            guard url.host == host else { throw APIError(422, "key-location-not-of-host", "keyLocation must be on \(host)") }
            // "The key file located at http://example.com/catalog/key.txt can include any URLs
            // starting with http://example.com/catalog/ but cannot include URLs starting with
            // http://example.com/help/."
            let directory = String(url.path[...url.path.lastIndex(of: "/")!])
            if let outside = urls.first(where: { !$0.path.hasPrefix(directory) }) {
                throw APIError(422, "url-not-under-key-location", "\(outside.string.prefix(200)) is not under \(directory), where the key file is")
            }
            location = url
        } else {
            guard let url = WebURL(urls[0].origin + "/" + key + ".txt") else { throw APIError(400, "invalid-url", "no key file URL for \(host)") }
            location = url
        }
        self.host = host
        self.key = key
        self.keyLocation = location
        self.urls = urls
        guard origins.count <= Limits.origins else {
            throw APIError(422, "too-many-origins", "a notice's URLs may be on at most \(Limits.origins) origins (scheme and port) of \(host)")
        }
    }

    /// Letters, digits and `-`, 8 to 128 of them.
    static func isValidKey(_ key: String) -> Bool {
        Limits.keyCharacters.contains(key.utf8.count) && key.utf8.allSatisfy { $0.isASCIILetterOrDigitByte || $0 == 0x2D }
    }

    /// A `host` field without a port (`www.example.com:8080` → `www.example.com`); IPv6
    /// literals keep their brackets.
    private static func hostName(_ text: String) -> String {
        if text.hasPrefix("[") { return text.firstIndex(of: "]").map { String(text[...$0]) } ?? text }
        return text.split(separator: ":", maxSplits: 1).first.map(String.init) ?? text
    }

    /// The origins of the URLs (a notice may mix http and https), in the order first met.
    var origins: [String] {
        var seen = Set<String>()
        return urls.map(\.origin).filter { seen.insert($0).inserted }
    }
}

extension UInt8 {
    fileprivate var isASCIILetterOrDigitByte: Bool {
        (0x30...0x39).contains(self) || (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self)
    }
}
