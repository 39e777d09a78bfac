import JSON
import WebURL

/// The extraction stage: raw HTML bytes, the page URL and response headers in, a
/// ``PageMarkup`` out, with no I/O.
///
/// libxml2 gets the raw bytes and the charset decided by ``CharsetDetection``; it is never
/// handed text that Swift decoded and re-encoded. Parsing is a single SAX pass that keeps
/// only what the markup families need (see ``HTMLEventCollector``); the families are then
/// read from the collected tags by pure functions. Bad input never fails extraction:
/// whatever could be read is returned, with ``ExtractionWarning``s for the rest.
///
/// A value type with no shared state: extract pages on as many threads as there are cores.
public struct MarkupExtractor: Sendable {
    public struct Options: Sendable {
        /// Bytes of all the visible body text kept, for the page's fingerprint.
        public var bodyTextLimit = 4096
        /// Bytes of main text kept (``MainText``): the body the index searches. Long enough
        /// for a long article whole (Wikipedia's longest run to ~200 KB of text; of the
        /// main-text panel's 1,120 pages none is cut).
        public var mainTextLimit = 256 * 1024
        /// Larger documents are cut here (the fetcher's default body limit is 10 MB).
        public var maximumDocumentBytes = 16 * 1024 * 1024

        public init() {}
    }

    /// What the response said about the body.
    public struct ResponseInfo: Sendable {
        public var contentType: String?
        /// Every `X-Robots-Tag` header value.
        public var robotsTags: [String]
        public var contentLanguage: String?

        public init(contentType: String? = nil, robotsTags: [String] = [], contentLanguage: String? = nil) {
            self.contentType = contentType
            self.robotsTags = robotsTags
            self.contentLanguage = contentLanguage
        }
    }

    public var options: Options

    public init(options: Options = Options()) {
        self.options = options
    }

    public func extract(_ bytes: [UInt8], url: WebURL?, response: ResponseInfo = ResponseInfo()) -> PageMarkup {
        bytes.withUnsafeBufferPointer { extract($0, url: url, response: response) }
    }

    public func extract(_ input: UnsafeBufferPointer<UInt8>, url: WebURL?, response: ResponseInfo = ResponseInfo()) -> PageMarkup {
        var warnings: [ExtractionWarning] = []
        var bytes = input
        if bytes.count > options.maximumDocumentBytes {
            warnings.append(ExtractionWarning(.limitReached, "document of \(bytes.count) bytes cut to \(options.maximumDocumentBytes)"))
            bytes = UnsafeBufferPointer(rebasing: bytes[0..<options.maximumDocumentBytes])
        }
        if Self.looksBinary(bytes) {
            warnings.append(ExtractionWarning(.notHTML, "the body looks like binary data, not HTML"))
        }
        var (charset, bomLength, charsetWarnings) = CharsetDetection.decide(bytes: bytes, contentType: response.contentType)
        warnings += charsetWarnings
        bytes = UnsafeBufferPointer(rebasing: bytes[bomLength...])

        var collector = parse(bytes, encoding: charset.encoding, warnings: &warnings)
        if charset.isUTF8, collector.encodingFailed {
            if charset.source == .sniffed {
                // Undeclared and not UTF-8: the web's default.
                charset = CharsetDecision(.windows1252, source: .default, declaredLabel: nil)
                collector = parse(bytes, encoding: charset.encoding, warnings: &warnings)
            } else {
                let repaired = CharsetConversion.repairUTF8(bytes)
                warnings.append(ExtractionWarning(.invalidBytes, "\(repaired.replacedSequences) invalid UTF-8 sequences replaced with U+FFFD"))
                collector = parse(repaired.bytes, encoding: "UTF-8", warnings: &warnings)
            }
        }
        var markup = PageMarkup(url: url, charset: charset)
        PageMarkupBuilder(collector: collector, response: response, mainTextLimit: options.mainTextLimit, visibleTextLimit: options.bodyTextLimit).build(into: &markup)
        markup.warnings = warnings + markup.warnings
        return markup
    }

    private func parse(_ bytes: [UInt8], encoding: String, warnings: inout [ExtractionWarning]) -> HTMLEventCollector {
        bytes.withUnsafeBufferPointer { parse($0, encoding: encoding, warnings: &warnings) }
    }

    /// Parses, first shortening runaway start tags, and falling back to iconv conversion
    /// when libxml2 cannot convert the charset.
    private func parse(_ bytes: UnsafeBufferPointer<UInt8>, encoding: String, warnings: inout [ExtractionWarning]) -> HTMLEventCollector {
        if CharsetConversion.mayContainHugeTag(bytes) {
            // UTF-16 is not ASCII-compatible: shorten its UTF-8 form instead.
            if encoding.hasPrefix("UTF-16"), let converted = CharsetConversion.toUTF8(bytes, from: encoding) {
                return parse(converted.bytes, encoding: "UTF-8", warnings: &warnings)
            }
            let (shortened, count) = CharsetConversion.shortenHugeTags(bytes)
            if count > 0 {
                warnings.append(ExtractionWarning(
                    .limitReached, "\(count) start tags longer than \(CharsetConversion.maximumTagBytes) bytes were cut short"))
                return shortened.withUnsafeBufferPointer { parseShortened($0, encoding: encoding, warnings: &warnings) }
            }
        }
        return parseShortened(bytes, encoding: encoding, warnings: &warnings)
    }

    private func parseShortened(_ bytes: UnsafeBufferPointer<UInt8>, encoding: String, warnings: inout [ExtractionWarning]) -> HTMLEventCollector {
        let collector = HTMLEventCollector(pageBytes: bytes.count)
        switch HTMLSAXParser.parse(bytes, encoding: encoding, into: collector) {
        case .finished where !collector.encodingFailed || encoding == "UTF-8":
            return collector
        case .finished, .unsupportedEncoding:
            guard let converted = CharsetConversion.toUTF8(bytes, from: encoding) else {
                warnings.append(ExtractionWarning(.unknownCharset, "charset \(encoding) is not supported here; read as windows-1252"))
                return parseShortened(bytes, encoding: "WINDOWS-1252", warnings: &warnings)
            }
            if converted.replacedSequences > 0 {
                warnings.append(ExtractionWarning(.invalidBytes, "\(converted.replacedSequences) byte sequences invalid in \(encoding) replaced with U+FFFD"))
            }
            return converted.bytes.withUnsafeBufferPointer { parseShortened($0, encoding: "UTF-8", warnings: &warnings) }
        }
    }

    /// A NUL, or more than 1 in 20 "binary data bytes", in the resource header (the first 1,445
    /// bytes). WHATWG MIME Sniffing §7.1: "A binary data byte is a byte in the range 0x00 to 0x08
    /// (NUL to BS), the byte 0x0B (VT), a byte in the range 0x0E to 0x1A (SO to SUB), or a byte in
    /// the range 0x1C to 0x1F (FS to US)" — ESC and FF are not, so ISO-2022-JP text passes. Where
    /// a browser calls one such byte binary, a page with a stray control character still reads
    /// as HTML here; random data has 27 in 256 (10.5 %), far above the 5 % line at this length.
    static func looksBinary(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let sample = bytes.prefix(1445)
        guard !sample.isEmpty else { return false }
        // UTF-16 text has NULs in it; its BOM says so.
        if CharsetDetection.byteOrderMark(bytes)?.0.isUTF16 == true { return false }
        var binary = 0
        for byte in sample {
            if byte == 0 { return true }
            if byte < 0x09 || byte == 0x0B || (byte >= 0x0E && byte <= 0x1A) || (byte >= 0x1C && byte <= 0x1F) { binary += 1 }
        }
        return binary * 20 > sample.count
    }
}
