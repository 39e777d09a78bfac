import TextUtilities
import CLibXML2
import Glibc

/// The elements whose attributes the collector reads, attribute helpers, and where in the
/// source an element sits.
extension HTMLEventCollector {
    // MARK: source locations

    /// Where the content of the element being reported starts: just past its start tag's `>`.
    var contentStart: SourceLocation {
        guard let input = parser?.pointee.input, let current = input.pointee.cur else { return SourceLocation(line: currentLine) }
        let column = Int(input.pointee.col)
        return SourceLocation(line: currentLine, column: current.pointee == UInt8(ascii: ">") ? column + 1 : column)
    }

    /// Bytes looked back through for the start of the element being reported.
    private static let tagLookBack = 8192

    /// Where the `<` of the element being reported starts. libxml2 calls `startElement`
    /// with its input past the tag's attributes, its line and column (in characters) at
    /// that point; the tag's start is found by looking back through the buffer, which
    /// holds the whole page (one push). Nil column when the tag spans more than the
    /// look-back or starts a line farther back than it.
    var tagLocation: SourceLocation {
        guard let input = parser?.pointee.input, let current = input.pointee.cur, let base = input.pointee.base else {
            return SourceLocation(line: currentLine)
        }
        let floor = max(base, current - Self.tagLookBack)
        var cursor = current
        var characters = 0
        var newlines = 0
        while cursor > floor, cursor.pointee != UInt8(ascii: "<") {
            cursor -= 1
            if cursor.pointee == 0x0A { newlines += 1 }
            if cursor.pointee & 0xC0 != 0x80 { characters += 1 }
        }
        guard cursor.pointee == UInt8(ascii: "<") else { return SourceLocation(line: currentLine) }
        let line = max(1, currentLine - newlines)
        if newlines == 0 { return SourceLocation(line: line, column: max(1, Int(input.pointee.col) - characters)) }
        // The tag spans lines: count its line's characters before it.
        var start = cursor
        var column = 1
        while start > floor, (start - 1).pointee != 0x0A {
            start -= 1
            if start.pointee & 0xC0 != 0x80 { column += 1 }
        }
        return SourceLocation(line: line, column: start == base || (start - 1).pointee == 0x0A ? column : nil)
    }

    // MARK: element handlers

    func handleMeta(_ attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?) {
        guard metas.count < Self.maximumMetaTags, let attributes else { return }
        var meta = Meta()
        meta.location = tagLocation
        var i = 0
        while let name = attributes[i] {
            let value = attributes[i + 1].map { String(cString: $0) }
            if Self.equals(name, "name") { meta.name = value }
            else if Self.equals(name, "property") { meta.property = value }
            else if Self.equals(name, "content") { meta.content = value }
            else if Self.equals(name, "http-equiv") { meta.httpEquiv = value }
            else if Self.equals(name, "charset") { meta.charset = value }
            i += 2
        }
        if meta.name != nil || meta.property != nil || meta.httpEquiv != nil { metas.append(meta) }
    }

    func handleLink(_ attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?) {
        guard links.count < Self.maximumLinks, let attributes else { return }
        var rel: String?
        var href: String?
        var hreflang: String?
        var sizes: String?
        var type: String?
        var i = 0
        while let name = attributes[i] {
            if let value = attributes[i + 1] {
                if Self.equals(name, "rel") { rel = String(cString: value) }
                else if Self.equals(name, "href") { href = String(cString: value) }
                else if Self.equals(name, "hreflang") { hreflang = String(cString: value) }
                else if Self.equals(name, "sizes") { sizes = String(cString: value) }
                else if Self.equals(name, "type") { type = String(cString: value) }
            }
            i += 2
        }
        if let rel, let href { links.append(Link(rel: rel, href: href, hreflang: hreflang, sizes: sizes, type: type)) }
    }

    /// Script types that hold markup for script to render.
    static func isTemplate(_ type: String) -> Bool {
        let essence = type.split(separator: ";").first.map { $0.trimmingASCIIWhitespace().lowercased() } ?? ""
        return essence == "text/template" || essence == "text/x-template" || essence == "text/html" || essence == "text/x-handlebars-template"
    }

    static func isJSONLD(_ type: String) -> Bool {
        let essence = type.split(separator: ";").first.map { $0.trimmingASCIIWhitespace().lowercased() } ?? ""
        return essence == "application/ld+json"
    }

    // MARK: attribute helpers

    @inline(__always)
    static func equals(_ p: UnsafePointer<UInt8>, _ s: StaticString) -> Bool {
        let q = s.utf8Start
        let n = s.utf8CodeUnitCount
        for i in 0..<n where p[i] != q[i] { return false }
        return p[n] == 0
    }

    static func attribute(_ attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, _ wanted: StaticString) -> String? {
        guard let attributes else { return nil }
        var i = 0
        while let name = attributes[i] {
            if equals(name, wanted) { return attributes[i + 1].map { String(cString: $0) } ?? "" }
            i += 2
        }
        return nil
    }

    /// The value of an attribute that has one, as libxml2's NUL-terminated bytes.
    static func attributeValue(_ attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, _ wanted: StaticString) -> UnsafePointer<UInt8>? {
        guard let attributes else { return nil }
        var i = 0
        while let name = attributes[i] {
            if equals(name, wanted) { return attributes[i + 1] }
            i += 2
        }
        return nil
    }
}
