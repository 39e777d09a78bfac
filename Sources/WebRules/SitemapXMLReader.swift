import CLibXML2
import WebURL

/// Reads the XML forms of a sitemap — `<urlset>`, `<sitemapindex>`, RSS 2.0, RSS 1.0/RDF,
/// Atom — with libxml2's SAX2 push parser, element names by local name so that a missing
/// or wrong namespace does not matter. SAX rather than the pull reader because a pull
/// reader stops delivering at an error, while SAX hands over everything read before it:
/// a cut file keeps its complete entries.
///
/// Safe on hostile input: no entity is declared or expanded (no `entityDecl` or
/// `getEntity` handler), nothing is loaded (`XML_PARSE_NONET`, no resolver), and every
/// buffer is bounded (``maximumEntries`` entries, 4 KB of text per field).
final class SitemapXMLReader {
    /// What one entry (`<url>`, `<sitemap>`, an RSS `<item>`, an Atom `<entry>`) said.
    struct Entry {
        var locations: [String] = []
        /// RSS's `<guid>`, a location when the item has no link and it is a URL.
        var guid: String?
        /// Text directly inside the entry (a location written without `<loc>`), or RSS 1.0's
        /// `rdf:about`.
        var bareText = ""
        /// A `<url>`'s `<xhtml:link rel="alternate" href>` pages (its other languages), which
        /// Google reads as listed by the sitemap too.
        var alternates: [String] = []
        var lastModified: String?
        var changeFrequency: String?
        var priority: String?
    }

    static let maximumEntries = 100_000
    static let maximumFieldBytes = 4096

    let base: WebURL
    private(set) var kind: Sitemap.Kind?
    private(set) var rootName = ""
    private(set) var entries: [Entry] = []
    /// Entries past ``maximumEntries``, counted.
    private(set) var overflow = 0
    /// The document did not end where it should: cut, or broken.
    private(set) var truncated = false

    private var depth = 0
    private var entryName: String?
    private var entryDepth = 0
    private var pending = Entry()
    private var field: String?
    private var fieldDepth = 0
    private var text: [UInt8] = []

    init(base: WebURL) {
        self.base = base
    }

    /// libxml2 must be initialised once, on one thread, before parsers run concurrently.
    private static let initialized: Bool = {
        xmlInitParser()
        return true
    }()

    func read(_ bytes: ArraySlice<UInt8>) {
        _ = Self.initialized
        var sax = Self.handler()
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let parser = xmlCreatePushParserCtxt(&sax, context, nil, 0, base.string) else { fatalError("xmlCreatePushParserCtxt: out of memory") }
        defer { xmlFreeParserCtxt(parser) }
        xmlCtxtUseOptions(parser, Int32(XML_PARSE_RECOVER.rawValue | XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue
                                        | XML_PARSE_NOWARNING.rawValue | XML_PARSE_NOCDATA.rawValue))
        let status = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { xmlParseChunk(parser, $0.baseAddress, Int32($0.count), 1) }
        }
        // A cut document: the entry being read counts when a location of it was complete
        // (crawler-commons' lenient mode; ultimate-sitemap-parser drops it).
        if entryName != nil, !pending.locations.isEmpty { finishEntry() }
        if status != 0 || parser.pointee.wellFormed == 0 || depth != 0 { truncated = true }
    }

    // MARK: events

    private func start(_ name: String, attribute: (String) -> String?) {
        depth += 1
        if depth == 1 {
            rootName = name
            switch name {
            case "urlset": kind = .urlset
            case "sitemapindex": kind = .index
            case "rss", "RDF", "feed": kind = .feed
            default: kind = nil
            }
            return
        }
        guard let kind else { return }
        if entryName == nil {
            guard Self.isEntry(name, kind: kind, depth: depth) else { return }
            entryName = name
            entryDepth = depth
            pending = Entry()
            if name == "item", let about = attribute("about") { pending.bareText = about }
            return
        }
        // Fields are the entry's own children: an `<image:loc>` or a news date deeper down
        // belongs to something else.
        guard field == nil, depth == entryDepth + 1 else { return }
        switch name {
        case "loc", "lastmod", "changefreq", "priority", "pubDate", "date", "updated", "modified", "issued", "published", "guid":
            startField(name)
        case "link" where kind == .feed:
            // Atom: the href of the entry's first alternate link; RSS: the element's text.
            if let href = attribute("href") {
                let rel = attribute("rel") ?? "alternate"
                if rel == "alternate", pending.locations.isEmpty, let resolved = WebURL(Sitemap.trimmed(href), relativeTo: base) {
                    pending.locations.append(resolved.string)
                }
            } else {
                startField(name)
            }
        case "link" where kind == .urlset:
            // A language version (`hreflang`), not a separate mobile URL of the same page
            // (`media`).
            if (attribute("rel") ?? "alternate") == "alternate", attribute("media") == nil, let href = attribute("href"), pending.alternates.count < 64,
                let resolved = WebURL(Sitemap.trimmed(href), relativeTo: base) {
                pending.alternates.append(resolved.string)
            }
        default:
            break
        }
    }

    private func startField(_ name: String) {
        field = name
        fieldDepth = depth
        text = []
    }

    private func end() {
        defer { depth -= 1 }
        if let current = field, depth == fieldDepth {
            let value = Sitemap.trimmed(String(decoding: text, as: UTF8.self))
            switch current {
            case "loc", "link": if !value.isEmpty { pending.locations.append(value) }
            case "changefreq": pending.changeFrequency = value
            case "priority": pending.priority = value
            case "guid": pending.guid = value
            default: if pending.lastModified == nil || current == "lastmod" || current == "updated" { pending.lastModified = value }
            }
            field = nil
        } else if entryName != nil, depth == entryDepth {
            finishEntry()
        }
    }

    private func characters(_ bytes: UnsafeBufferPointer<UInt8>) {
        if field != nil {
            if text.count + bytes.count <= Self.maximumFieldBytes { text.append(contentsOf: bytes) }
        } else if entryName != nil, depth == entryDepth, pending.bareText.utf8.count + bytes.count <= Self.maximumFieldBytes {
            pending.bareText += String(decoding: bytes, as: UTF8.self)
        }
    }

    private func finishEntry() {
        entryName = nil
        guard entries.count < Self.maximumEntries else {
            overflow += 1
            return
        }
        entries.append(pending)
    }

    /// Whether an element at `depth` is one entry of a document of `kind`.
    private static func isEntry(_ name: String, kind: Sitemap.Kind, depth: Int) -> Bool {
        switch kind {
        case .urlset: depth == 2 && name == "url"
        case .index: depth == 2 && name == "sitemap"
        // RSS 2.0: rss/channel/item; RSS 1.0: RDF/item (or inside channel); Atom: feed/entry.
        case .feed: (name == "item" && depth <= 3) || (name == "entry" && depth == 2)
        case .text: false
        }
    }

    // MARK: the handler

    @inline(__always)
    private static func withReader(_ context: UnsafeMutableRawPointer?, _ body: (SitemapXMLReader) -> Void) {
        Unmanaged<SitemapXMLReader>.fromOpaque(context!)._withUnsafeGuaranteedRef(body)
    }

    private static func handler() -> xmlSAXHandler {
        var sax = xmlSAXHandler()
        sax.initialized = XML_SAX2_MAGIC
        sax.startElementNs = { context, localName, _, _, _, _, attributeCount, _, attributes in
            guard let localName else { return }
            let name = String(cString: localName)
            SitemapXMLReader.withReader(context) { reader in
                reader.start(name) { wanted in
                    // Five pointers per attribute: local name, prefix, URI, value start, value end.
                    guard let attributes else { return nil }
                    for index in 0..<Int(attributeCount) {
                        guard let attributeName = attributes[index * 5], String(cString: attributeName) == wanted,
                            let start = attributes[index * 5 + 3], let end = attributes[index * 5 + 4]
                        else { continue }
                        return String(decoding: UnsafeBufferPointer(start: start, count: end - start), as: UTF8.self)
                    }
                    return nil
                }
            }
        }
        sax.endElementNs = { context, _, _, _ in
            SitemapXMLReader.withReader(context) { $0.end() }
        }
        sax.characters = { context, bytes, length in
            guard let bytes, length > 0 else { return }
            SitemapXMLReader.withReader(context) { $0.characters(UnsafeBufferPointer(start: bytes, count: Int(length))) }
        }
        sax.cdataBlock = sax.characters
        // Errors are not printed; what was read before one stays.
        sax.serror = { _, _ in }
        return sax
    }
}
