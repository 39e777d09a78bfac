import TextUtilities
import CLibXML2
import Glibc

/// Receives libxml2's SAX events for one page and keeps only what extraction needs: meta
/// and link tags, anchors, the title, the first h1, JSON-LD script text, a microdata
/// skeleton, the visible body text up to a limit, and parser errors.
///
/// No DOM is built. Text is copied only while something is listening for it: the element
/// stack records where each capture started in one shared text log, so nested captures
/// (an itemprop inside an anchor) share the bytes. Strings are made only for the
/// attributes of the few elements that matter.
///
/// Not thread-safe: one collector per parse, driven by the parsing thread.
final class HTMLEventCollector {
    struct Meta {
        var name: String?
        var property: String?
        var content: String?
        var httpEquiv: String?
        var charset: String?
        var location: SourceLocation?
    }

    struct Link {
        var rel: String
        var href: String
        var hreflang: String?
        var sizes: String?
        var type: String?
    }

    struct Anchor {
        /// Where the href's bytes sit in ``hrefBytes``.
        var href: Range<Int>
        var rel: Outlink.Rel
        var text: String
        var isArea: Bool
    }

    struct Script {
        var text: [UInt8]
        /// Where the script's text starts.
        var start: SourceLocation
        var order: Int
    }

    /// What an element's captured text is for (besides a microdata value).
    private enum CaptureRole: UInt8 {
        case none, title, headline, jsonLD, anchor, template
    }

    private struct OpenElement {
        var tag: HTMLTag
        var block: BlockTag
        var role = CaptureRole.none
        var captureStart: Int32 = -1
        var microdataNode: Int32 = -1
    }

    /// The page's text as blocks, for its main content.
    let mainText: MainTextCollector
    static let maximumMetaTags = 2_000
    static let maximumLinks = 2_000
    static let maximumAnchors = 20_000
    static let maximumScripts = 200
    static let maximumRecordedErrors = 5

    // Outputs.
    var metas: [Meta] = []
    var links: [Link] = []
    var anchors: [Anchor] = []
    /// The bytes of every anchor's href, back to back: one buffer instead of a String each.
    var hrefBytes: [UInt8] = []
    var scripts: [Script] = []
    /// The markup of `<script type="text/template">` (and `text/x-template`, `text/html`)
    /// blocks, back to back, at most ``maximumTemplateBytes``: some pages keep their article
    /// there for script to render.
    var templates: [UInt8] = []
    static let maximumTemplateBytes = 512 * 1024
    private var templateDepth = 0
    var microdata = MicrodataSkeleton()
    var scriptSignals = ScriptSignals()
    /// A mount point being read: the stack depth it sits at, the element count when it opened,
    /// and its name.
    private var openMountPoint: (depth: Int, elements: Int, name: String)?
    var title: String?
    var headline: String?
    var baseHref: String?
    var htmlLang: String?
    var errorCount = 0
    var errors: [(line: Int, message: String)] = []
    var encodingFailed = false
    var droppedItems = 0
    /// Counts elements, giving JSON-LD blocks and microdata items a document order.
    @exclusivity(unchecked) var elementCount = 0

    // State, unchecked for exclusive access: the parser's callbacks come one after another on
    // one thread and none re-enters another, and a class's stored properties are otherwise
    // checked at run time on every access (3 % of extraction, measured).
    var parser: htmlParserCtxtPtr?
    @exclusivity(unchecked) private var stack: [OpenElement] = []
    @exclusivity(unchecked) private var textLog: [UInt8] = []
    @exclusivity(unchecked) private var activeCaptures = 0
    /// Open `script` and `style` elements: their text is code, never part of a title, an
    /// anchor's text or a microdata value.
    @exclusivity(unchecked) private var rawTextDepth = 0
    /// The text of the JSON-LD script being read, kept apart from the shared text log.
    @exclusivity(unchecked) private var jsonLDText: [UInt8]?
    @exclusivity(unchecked) private var svgDepth = 0
    private var scriptStart = SourceLocation(line: 0)

    /// `pageBytes`: the size of the page, which its text seldom outgrows (a first guess for
    /// the main-text buffer, so that it rarely has to grow).
    init(pageBytes: Int = 0) {
        mainText = MainTextCollector(expectedBytes: pageBytes)
        stack.reserveCapacity(64)
    }

    var currentLine: Int {
        guard let input = parser?.pointee.input else { return 0 }
        return Int(input.pointee.line)
    }

    // MARK: SAX events

    func startElement(_ name: UnsafePointer<UInt8>, _ attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?) {
        elementCount += 1
        let tag = HTMLTag(name: name)
        let block = svgDepth > 0 ? BlockTag.hidden : BlockTag(name: name)
        var element = OpenElement(tag: tag, block: block)
        mainText.start(block, isLink: tag == .a, isTime: tag == .time, attributes: attributes)
        if tag == .script || tag == .style { rawTextDepth += 1 }
        if tag.breaksWords { appendBreak() }

        // Microdata and id attributes may sit on any element.
        var itemprop: UnsafePointer<UInt8>?
        var itemscope = false
        var itemtype: UnsafePointer<UInt8>?
        var itemid: UnsafePointer<UInt8>?
        var itemref: UnsafePointer<UInt8>?
        var id: UnsafePointer<UInt8>?
        if let attributes {
            var i = 0
            while let attributeName = attributes[i] {
                if attributeName[0] == UInt8(ascii: "i") {
                    let value = attributes[i + 1]
                    if attributeName[1] == UInt8(ascii: "d"), attributeName[2] == 0 {
                        id = value
                    } else if attributeName[1] == UInt8(ascii: "t"), attributeName[2] == UInt8(ascii: "e"), attributeName[3] == UInt8(ascii: "m") {
                        let rest = attributeName + 4
                        if Self.equals(rest, "prop") { itemprop = value }
                        else if Self.equals(rest, "scope") { itemscope = true }
                        else if Self.equals(rest, "type") { itemtype = value }
                        else if Self.equals(rest, "id") { itemid = value }
                        else if Self.equals(rest, "ref") { itemref = value }
                    }
                }
                i += 2
            }
        }

        switch tag {
        case .meta: handleMeta(attributes)
        case .link: handleLink(attributes)
        case .a, .area:
            if anchors.count + pendingAnchors.count < Self.maximumAnchors, let href = Self.attributeValue(attributes, "href") {
                let start = hrefBytes.count
                hrefBytes.append(contentsOf: UnsafeBufferPointer(start: href, count: strlen(href)))
                let rel = Self.attributeValue(attributes, "rel").map(Outlink.Rel.init(attribute:)) ?? []
                if tag == .area {
                    anchors.append(Anchor(href: start..<hrefBytes.count, rel: rel, text: Self.attribute(attributes, "alt") ?? "", isArea: true))
                } else {
                    element.role = .anchor
                    element.captureStart = beginCapture()
                    pendingAnchors.append(Anchor(href: start..<hrefBytes.count, rel: rel, text: "", isArea: false))
                }
            }
        case .base:
            if baseHref == nil { baseHref = Self.attribute(attributes, "href") }
        case .html:
            if htmlLang == nil { htmlLang = Self.attribute(attributes, "lang") ?? Self.attribute(attributes, "xml:lang") }
        case .title:
            if title == nil, svgDepth == 0 {
                element.role = .title
                element.captureStart = beginCapture()
            }
        case .h1:
            if headline == nil {
                element.role = .headline
                element.captureStart = beginCapture()
            }
        case .svg:
            svgDepth += 1
        case .script:
            let type = Self.attribute(attributes, "type")
            if ScriptSignals.runs(type: type) {
                scriptSignals.scripts += 1
                if Self.attributeValue(attributes, "src") != nil { scriptSignals.externalScripts += 1 }
            }
            if let type {
                if scripts.count < Self.maximumScripts, jsonLDText == nil, Self.isJSONLD(type) {
                    element.role = .jsonLD
                    jsonLDText = []
                    scriptStart = contentStart
                } else if Self.isTemplate(type) {
                    element.role = .template
                    templateDepth += 1
                }
            }
        default:
            break
        }

        if scriptSignals.emptyMountPoint == nil, openMountPoint == nil, svgDepth == 0 {
            let mountName = id.map { String(cString: $0) } ?? (tag == .other ? String(cString: name) : nil)
            if let mountName, (id != nil ? ScriptSignals.mountPointIDs : ScriptSignals.mountPointTags).contains(mountName) {
                openMountPoint = (stack.count, elementCount, mountName)
            }
        }
        if itemprop != nil || itemscope || id != nil {
            element.microdataNode = microdata.open(
                tag: tag, itemprop: itemprop, itemscope: itemscope, itemtype: itemtype, itemid: itemid, itemref: itemref, id: id,
                attributes: attributes, order: elementCount)
            if microdata.needsText(element.microdataNode), element.captureStart < 0 {
                element.captureStart = beginCapture()
            }
        }
        stack.append(element)
    }

    /// Anchors whose text is still being captured, innermost last.
    private var pendingAnchors: [Anchor] = []

    func endElement() {
        guard let element = stack.popLast() else { return }
        let tag = element.tag
        if let mount = openMountPoint, mount.depth == stack.count {
            if elementCount == mount.elements { scriptSignals.emptyMountPoint = mount.name }
            openMountPoint = nil
        }
        mainText.end()
        if element.role == .template {
            templateDepth -= 1
            if templates.count < Self.maximumTemplateBytes { templates.append(0x0A) }
        }
        if element.role == .jsonLD, let text = jsonLDText {
            scripts.append(Script(text: text, start: scriptStart, order: elementCount))
            jsonLDText = nil
        }
        if element.captureStart >= 0 {
            let start = Int(element.captureStart)
            let captured = textLog[start...]
            switch element.role {
            case .title:
                title = Self.collapsedString(captured, limit: 2048)
            case .headline:
                headline = Self.collapsedString(captured, limit: 2048)
            case .anchor:
                if var anchor = pendingAnchors.popLast() {
                    anchor.text = Self.collapsedString(captured, limit: 256)
                    anchors.append(anchor)
                }
            case .none, .jsonLD, .template:
                break
            }
            if element.microdataNode >= 0 {
                microdata.setText(element.microdataNode, Self.collapsedString(captured, limit: 4096))
            }
            endCapture()
        }
        if element.microdataNode >= 0 { microdata.close(element.microdataNode) }
        if tag == .svg { svgDepth -= 1 }
        if tag == .script || tag == .style { rawTextDepth -= 1 }
        if tag.breaksWords { appendBreak() }
    }

    func characters(_ bytes: UnsafePointer<UInt8>, _ count: Int) {
        let buffer = UnsafeBufferPointer(start: bytes, count: count)
        if jsonLDText != nil { jsonLDText?.append(contentsOf: buffer) }
        if templateDepth > 0, templates.count + buffer.count <= Self.maximumTemplateBytes { templates.append(contentsOf: buffer) }
        if activeCaptures > 0, rawTextDepth == 0 { textLog.append(contentsOf: buffer) }
        if rawTextDepth == 0 { mainText.characters(buffer) }
    }

    func structuredError(_ error: UnsafePointer<xmlError>) {
        let code = Int32(error.pointee.code)
        if code == Int32(XML_ERR_INVALID_ENCODING.rawValue) || code == Int32(XML_I18N_CONV_FAILED.rawValue)
            || code == Int32(XML_IO_ENCODER.rawValue) || error.pointee.domain == Int32(XML_FROM_I18N.rawValue)
        {
            encodingFailed = true
        }
        // libxml2 2.9 predates HTML5 and calls <header>, <nav>, <main>… unknown: not an error.
        guard code != Int32(XML_HTML_UNKNOWN_TAG.rawValue) else { return }
        errorCount += 1
        guard errors.count < Self.maximumRecordedErrors, let message = error.pointee.message else { return }
        errors.append((Int(error.pointee.line), String(cString: message).trimmingASCIIWhitespace()))
    }

    // MARK: captures and text

    private func beginCapture() -> Int32 {
        activeCaptures += 1
        return Int32(textLog.count)
    }

    private func endCapture() {
        activeCaptures -= 1
        if activeCaptures == 0 { textLog.removeAll(keepingCapacity: true) }
    }

    private func appendBreak() {
        if activeCaptures > 0, textLog.last != 0x20 { textLog.append(0x20) }
    }

    /// The captured bytes as a String with whitespace runs collapsed, cut at `limit` bytes
    /// on a character boundary.
    static func collapsedString(_ bytes: ArraySlice<UInt8>, limit: Int) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(min(bytes.count, limit))
        var pendingSpace = false
        for byte in bytes {
            if byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D || byte == 0x0C {
                pendingSpace = !out.isEmpty
                continue
            }
            if out.count >= limit, byte & 0xC0 != 0x80 { break }
            if pendingSpace {
                out.append(0x20)
                pendingSpace = false
            }
            out.append(byte)
        }
        return String(decoding: out, as: UTF8.self)
    }

}

@available(*, unavailable)
extension HTMLEventCollector: Sendable {}
