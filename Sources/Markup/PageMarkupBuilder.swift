import TextUtilities
import JSON
import WebURL

/// Turns the tags, text and scripts an ``HTMLEventCollector`` kept into a ``PageMarkup``:
/// resolves URLs against the document's base, and hands each markup family its tags.
struct PageMarkupBuilder {
    let collector: HTMLEventCollector
    let response: MarkupExtractor.ResponseInfo
    /// Bytes of main text kept.
    let mainTextLimit: Int
    /// Bytes of visible text kept, for the fingerprint.
    let visibleTextLimit: Int

    func build(into markup: inout PageMarkup) {
        // The document base: the first <base href>, resolved against the page URL.
        if let href = collector.baseHref {
            if let base = markup.url.map({ URLResolver(base: $0) })?.resolve(href) ?? WebURL(href) {
                markup.baseURL = base
            } else {
                markup.warnings.append(ExtractionWarning(.invalidMarkup, "<base href=\"\(href.prefix(200))\"> is not an http(s) URL; ignored"))
            }
        }
        let resolver = markup.baseURL.map { URLResolver(base: $0) }
        let resolve: (String) -> WebURL? = { reference in resolver?.resolve(reference) ?? WebURL(reference) }

        markup.title = collector.title.flatMap(Self.nonEmpty)
        markup.headline = collector.headline.flatMap(Self.nonEmpty)
        markup.scriptSignals = collector.scriptSignals
        markup.language = collector.htmlLang.flatMap(Self.nonEmpty)
            ?? response.contentLanguage.flatMap { Self.nonEmpty($0.split(separator: ",").first.map(String.init) ?? "") }

        readMetaTags(into: &markup)
        markup.mainText = collector.mainText.finish().droppingTitle([markup.title, markup.openGraph?.title].compactMap { $0 })
        markup.visibleText = markup.mainText.leadingText(maximumBytes: visibleTextLimit)
        markup.bodyText = markup.mainText.selected(maximumBytes: mainTextLimit)
        for value in response.robotsTags { markup.robots.apply(headerValue: value) }
        readLinks(into: &markup, resolve: resolve)
        readAnchors(into: &markup, resolver: resolver)
        readSchema(into: &markup, resolve: resolve)
        readHiddenArticle(into: &markup)

        if collector.errorCount > 0 {
            let first = collector.errors.map { "line \($0.line): \($0.message)" }.joined(separator: "; ")
            markup.warnings.append(ExtractionWarning(.malformedHTML, "libxml2 reported \(collector.errorCount) HTML errors (first: \(first))",
                                                     line: collector.errors.first?.line))
        }
        if collector.anchors.count >= HTMLEventCollector.maximumAnchors {
            markup.warnings.append(ExtractionWarning(.limitReached, "only the first \(HTMLEventCollector.maximumAnchors) links were read"))
        }
    }

    /// A page that shows little text of its own but keeps its article elsewhere — in
    /// JSON-LD's `articleBody`, or as markup in a `<script type="text/template">` that script
    /// renders — gets that as its main text.
    private func readHiddenArticle(into markup: inout PageMarkup) {
        guard markup.bodyText.utf8.count < Self.littleText else { return }
        if let article = markup.schema.articleBody, article.utf8.count > markup.bodyText.utf8.count {
            var cleaned: [UInt8] = []
            MainText.appendClean(Array(article.utf8)[...], to: &cleaned)
            markup.bodyText = TextClean.string(cleaned, limit: mainTextLimit)
            return
        }
        guard !collector.templates.isEmpty else { return }
        let nested = HTMLEventCollector()
        _ = collector.templates.withUnsafeBufferPointer { HTMLSAXParser.parse($0, encoding: "UTF-8", into: nested) }
        let text = nested.mainText.finish().selected(maximumBytes: mainTextLimit)
        if text.utf8.count > markup.bodyText.utf8.count { markup.bodyText = text }
    }

    /// Less main text than this and the page is read for an article kept out of sight.
    static let littleText = 500

    private static func nonEmpty(_ s: String) -> String? {
        let t = s.trimmingASCIIWhitespace()
        return t.isEmpty ? nil : t
    }

    private func readMetaTags(into markup: inout PageMarkup) {
        var appLinkTags: [(String, String)] = []
        var twitterTags: [(String, String)] = []
        var openGraphTags: [(String, String)] = []
        for meta in collector.metas {
            let content = meta.content ?? ""
            if let name = meta.name?.trimmingASCIIWhitespace().lowercased() {
                switch name {
                case "description": if markup.metaDescription == nil { markup.metaDescription = Self.nonEmpty(content) }
                case "keywords":
                    if markup.keywords.isEmpty {
                        markup.keywords = content.split(separator: ",").compactMap { Self.nonEmpty(String($0)) }
                    }
                case "robots", RobotsDirectives.productToken: markup.robots.apply(metaContent: content, name: name)
                case "apple-itunes-app": if markup.smartAppBanner == nil { markup.smartAppBanner = SmartAppBanner(content: content) }
                default: break
                }
            }
            // App Links and Open Graph are RDFa (property=); Twitter cards use name=. Each
            // family also accepts the other attribute, as pages in the wild mix them up.
            let key = (meta.property ?? meta.name)?.trimmingASCIIWhitespace() ?? ""
            let lower = key.lowercased()
            if !lower.isEmpty, let location = meta.location {
                markup.metaTagLocations.append(PageMarkup.MetaTagLocation(key: lower, location: location))
            }
            if lower.hasPrefix("al:") {
                appLinkTags.append((key, content))
            } else if lower.hasPrefix("twitter:") {
                twitterTags.append((key, content))
            } else if lower.hasPrefix("og:") {
                openGraphTags.append((key, content))
            }
            if let equiv = meta.httpEquiv?.lowercased() {
                if equiv == "content-language", markup.language == nil { markup.language = Self.nonEmpty(content) }
                if equiv == "x-robots-tag" { markup.robots.apply(headerValue: content) }
            }
        }
        markup.appLinks = AppLinks(properties: appLinkTags)
        markup.twitterCard = TwitterCard(properties: twitterTags)
        markup.openGraph = OpenGraph(properties: openGraphTags)
    }

    private func readLinks(into markup: inout PageMarkup, resolve: (String) -> WebURL?) {
        for link in collector.links {
            let rels = Set(link.rel.lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).map(String.init))
            if rels.contains("alternate"), let alternate = AppAlternate(href: link.href) {
                markup.appAlternates.append(alternate)
                continue
            }
            guard let url = resolve(link.href) else { continue }
            if rels.contains("canonical"), markup.canonicalURL == nil { markup.canonicalURL = url.withoutFragment }
            if rels.contains("alternate") {
                if let lang = link.hreflang.flatMap(Self.nonEmpty) {
                    markup.hreflangAlternates.append(HreflangAlternate(hreflang: lang, url: url))
                }
                markup.outlinks.append(Outlink(url: url.withoutFragment, element: .linkAlternate))
            }
            if rels.contains("next") { markup.outlinks.append(Outlink(url: url.withoutFragment, element: .linkNext)) }
            if rels.contains("prev") || rels.contains("previous") {
                markup.outlinks.append(Outlink(url: url.withoutFragment, element: .linkPrev))
            }
            if rels.contains("icon") || rels.contains("apple-touch-icon") || rels.contains("apple-touch-icon-precomposed") {
                let rel = rels.contains("apple-touch-icon-precomposed") ? "apple-touch-icon-precomposed"
                    : rels.contains("apple-touch-icon") ? "apple-touch-icon" : link.rel.lowercased().trimmingASCIIWhitespace()
                markup.icons.append(PageIcon(rel: rel, url: url, sizes: link.sizes, type: link.type))
            }
        }
    }

    /// Anchors become outlinks, one per target URL: the first anchor's text is kept, and a
    /// target linked both with and without `nofollow` counts as followed.
    private func readAnchors(into markup: inout PageMarkup, resolver: URLResolver?) {
        var seen: [WebURL: Int] = [:]
        for existing in markup.outlinks.indices { seen[markup.outlinks[existing].url] = existing }
        collector.hrefBytes.withUnsafeBufferPointer { hrefs in
            for anchor in collector.anchors {
                let href = UnsafeBufferPointer(rebasing: hrefs[anchor.href])
                let resolved = resolver.map { $0.resolve(bytes: href, keepingFragment: false) }
                    ?? WebURL(String(decoding: href, as: UTF8.self))?.withoutFragment
                guard let url = resolved else { continue }
                if let index = seen[url] {
                    markup.outlinks[index].rel.formIntersection(anchor.rel)
                    if markup.outlinks[index].text.isEmpty { markup.outlinks[index].text = anchor.text }
                    continue
                }
                seen[url] = markup.outlinks.count
                markup.outlinks.append(Outlink(url: url, text: anchor.text, rel: anchor.rel, element: anchor.isArea ? .area : .anchor))
            }
        }
    }

    /// The entities of one JSON-LD value: a top-level array's objects, `@graph` members
    /// (and the graph's own object when it says more than `@context`), skipping empty objects.
    private static func entities(in value: JSONValue) -> [JSONObject] {
        var result: [JSONObject] = []
        for element in value.asList {
            guard let object = element.objectValue, !object.isEmpty else { continue }
            guard let graph = object["@graph"] else {
                result.append(object)
                continue
            }
            result += graph.asList.compactMap(\.objectValue).filter { !$0.isEmpty }
            let rest = JSONObject(object.members.filter { $0.key != "@graph" && $0.key != "@context" }.map { ($0.key, $0.value) })
            if !rest.isEmpty { result.append(object) }
        }
        return result
    }

    /// Where byte `offset` of a script's text (on its `line`, 1-based) sits in the page, in
    /// characters: on the script's first line the columns count from where the text starts.
    static func location(of offset: Int, line: Int, in text: [UInt8], startingAt start: SourceLocation) -> SourceLocation {
        let end = min(max(0, offset), text.count)
        var lineStart = end
        while lineStart > 0, text[lineStart - 1] != 0x0A { lineStart -= 1 }
        let characters = text[lineStart..<end].reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) }
        guard line == 1 else { return SourceLocation(line: start.line + line - 1, column: characters + 1) }
        return SourceLocation(line: start.line, column: start.column.map { $0 + characters })
    }

    private func readSchema(into markup: inout PageMarkup, resolve: @escaping (String) -> WebURL?) {
        var ordered: [(SchemaObject, order: Int)] = []
        for (index, script) in collector.scripts.enumerated() {
            let text = ScriptText.withoutHTMLComments(script.text)
            let result = text.withUnsafeBufferPointer { JSONParser.parseLenient(bytes: $0) }
            let blockName = "JSON-LD block \(index + 1)"
            for (number, repair) in result.repairs.enumerated() {
                let place = Self.location(of: repair.offset, line: repair.line, in: text, startingAt: script.start)
                let consequence = number == 0
                    ? "; read after repair here, but strict JSON readers (Google's among them) drop the whole block" : ""
                markup.warnings.append(ExtractionWarning(
                    .jsonLDRepaired, "\(blockName), repair \(number + 1) of \(result.repairs.count): \(repair.message)\(consequence)",
                    line: place.line, column: place.column))
            }
            if let error = result.error {
                let kept = result.values.isEmpty ? "nothing could be read" : "kept what was read before it"
                let place = Self.location(of: error.offset, line: error.line, in: text, startingAt: script.start)
                markup.warnings.append(ExtractionWarning(.jsonLDInvalid, "\(blockName): \(error.message); \(kept)",
                                                         line: place.line, column: place.column))
            }
            for value in result.values {
                for object in Self.entities(in: value) {
                    ordered.append((SchemaObject(source: .jsonLD, value: object), script.order))
                }
            }
        }
        var skeleton = collector.microdata
        skeleton.closeAll()
        let (items, microdataWarnings) = skeleton.items(resolveURL: { resolve($0)?.string })
        markup.warnings += microdataWarnings
        ordered += items.map { (SchemaObject(source: .microdata, value: $0.0), $0.order) }
        markup.schemaObjects = ordered.enumerated().sorted { ($0.element.order, $0.offset) < ($1.element.order, $1.offset) }.map(\.element.0)
        markup.schema = SchemaSummary(objects: markup.schemaObjects, resolveURL: { resolve($0)?.string })
    }
}
