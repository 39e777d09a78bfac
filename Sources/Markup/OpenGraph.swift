import TextUtilities
/// Open Graph (`<meta property="og:…">`, ogp.me).
///
/// Rules: repeating a tag makes an array, and for a single-valued property the first tag
/// wins. A structured property (`og:image:width`) belongs to the most recent root tag
/// (`og:image`); a new root starts a new element. `og:image:url` is the same as
/// `og:image`: it fills the current element when that has no URL yet and starts a new one
/// otherwise. `property=` is the standard attribute; `name=` is accepted too.
public struct OpenGraph: Sendable, Hashable {
    /// Every `og:` tag, in document order, as written.
    public var properties: [Property] = []
    public var title: String?
    public var type: String?
    public var url: String?
    public var description: String?
    public var siteName: String?
    public var locale: String?
    public var localeAlternates: [String] = []
    public var determiner: String?
    public var images: [Media] = []
    public var videos: [Media] = []
    public var audios: [Media] = []

    public struct Property: Sendable, Hashable {
        public var name: String
        public var content: String
    }

    /// An `og:image`, `og:video` or `og:audio` with its structured properties.
    public struct Media: Sendable, Hashable {
        public var url: String?
        public var secureURL: String?
        public var type: String?
        public var width: Int?
        public var height: Int?
        public var alt: String?

        /// The URL to use: the secure one when given, else the plain one.
        public var bestURL: String? { secureURL ?? url }
    }

    /// - Parameter properties: (property, content) pairs whose property starts with `og:`, in order.
    public init?(properties tags: [(String, String)]) {
        guard !tags.isEmpty else { return nil }
        for (rawName, rawContent) in tags {
            let name = rawName.lowercased()
            let content = rawContent.trimmingASCIIWhitespace()
            properties.append(Property(name: name, content: content))
            guard !content.isEmpty else { continue }
            let parts = name.split(separator: ":").map(String.init)
            guard parts.count >= 2 else { continue }
            switch parts[1] {
            case "image": Self.apply(parts.dropFirst(2), content, to: &images)
            case "video": Self.apply(parts.dropFirst(2), content, to: &videos)
            case "audio": Self.apply(parts.dropFirst(2), content, to: &audios)
            case "title" where parts.count == 2: title = title ?? content
            case "type" where parts.count == 2: type = type ?? content
            case "url" where parts.count == 2: url = url ?? content
            case "description" where parts.count == 2: description = description ?? content
            case "site_name" where parts.count == 2: siteName = siteName ?? content
            case "determiner" where parts.count == 2: determiner = determiner ?? content
            case "locale" where parts.count == 2: locale = locale ?? content
            case "locale" where parts.count == 3 && parts[2] == "alternate": localeAlternates.append(content)
            default: continue
            }
        }
    }

    private static func apply(_ subpath: ArraySlice<String>, _ content: String, to list: inout [Media]) {
        guard let field = subpath.first else {
            list.append(Media(url: content))
            return
        }
        if field == "url" {
            if let last = list.last, last.url == nil || last.url == content {
                list[list.count - 1].url = content
            } else {
                list.append(Media(url: content))
            }
            return
        }
        // A structured property before any root tag starts an element of its own.
        if list.isEmpty { list.append(Media()) }
        let i = list.count - 1
        switch field {
        case "secure_url": list[i].secureURL = list[i].secureURL ?? content
        case "type": list[i].type = list[i].type ?? content
        case "width": list[i].width = list[i].width ?? Int(content)
        case "height": list[i].height = list[i].height ?? Int(content)
        case "alt": list[i].alt = list[i].alt ?? content
        default: break
        }
    }
}
