/// Resolves many references against one base URL, as an HTML page's links are.
///
/// Holds the base parsed once per page. References already in normal form, absolute paths
/// and absolute URLs (the bulk of a site's links), skip the parser: a path is joined to the
/// base's origin, a URL is taken as it is.
///
/// Not thread-safe; make one per page.
public final class URLResolver {
    public let base: WebURL
    private let baseRecord: URLParser.Record?
    private let baseOrigin: String

    public init(base: WebURL) {
        self.base = base
        self.baseRecord = URLParser.parse(base.string.utf8, base: nil)
        self.baseOrigin = base.string.utf8.firstIndex(of: UInt8(ascii: "/"), after: base.scheme.utf8.count + 3)
            .map { String(base.string[..<$0]) } ?? base.string
    }

    /// The absolute http(s) URL `reference` points to, or nil when it is not one (a
    /// `mailto:` or `javascript:` link, an unparsable value).
    public func resolve(_ reference: String) -> WebURL? {
        var reference = reference
        return reference.withUTF8 { resolve(bytes: $0, keepingFragment: true) }
    }

    /// Resolves a reference given as UTF-8 bytes (straight from the parser, without making
    /// a String first), optionally dropping the fragment, as outlinks want.
    public func resolve(bytes reference: UnsafeBufferPointer<UInt8>, keepingFragment: Bool) -> WebURL? {
        if let layout = URLNormalization.canonicalAbsolutePathLayout(reference) {
            var layout = layout
            var reference = reference
            if !keepingFragment, let fragment = layout.fragmentStart {
                reference = UnsafeBufferPointer(rebasing: reference[..<fragment])
                layout.fragmentStart = nil
            }
            return WebURL(origin: baseOrigin, hostRange: base.hostRange, canonicalPath: reference, layout: layout)
        }
        if var layout = URLNormalization.canonicalAbsoluteURLLayout(reference) {
            var reference = reference
            if !keepingFragment, let fragment = layout.path.fragmentStart {
                reference = UnsafeBufferPointer(rebasing: reference[..<(layout.pathStart + fragment)])
                layout.path.fragmentStart = nil
            }
            return WebURL(canonical: reference, layout: layout)
        }
        guard let record = URLParser.parse(reference, base: baseRecord) else { return nil }
        let resolved = WebURL(record: record)
        return keepingFragment ? resolved : resolved.withoutFragment
    }
}

extension String.UTF8View {
    fileprivate func firstIndex(of byte: UInt8, after offset: Int) -> String.Index? {
        guard offset < count else { return nil }
        return self[index(startIndex, offsetBy: offset)...].firstIndex(of: byte)
    }
}
