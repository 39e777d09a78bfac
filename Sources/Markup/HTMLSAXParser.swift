import CLibXML2

/// Drives libxml2's HTML push parser over raw bytes in a given encoding, delivering SAX
/// events to an ``HTMLEventCollector``. <https://gnome.pages.gitlab.gnome.org/libxml2/devhelp/libxml2-HTMLparser.html>
enum HTMLSAXParser {
    enum Outcome {
        case finished
        /// libxml2 does not know the encoding.
        case unsupportedEncoding
    }

    /// libxml2 must be initialised once, on one thread, before parsers run concurrently.
    private static let initialized: Bool = {
        xmlInitParser()
        return true
    }()

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, encoding: String, into collector: HTMLEventCollector) -> Outcome {
        _ = initialized
        var sax = makeHandler()
        let context = Unmanaged.passUnretained(collector).toOpaque()
        guard let parser = htmlCreatePushParserCtxt(&sax, context, nil, 0, nil, XML_CHAR_ENCODING_NONE) else {
            fatalError("htmlCreatePushParserCtxt: out of memory")
        }
        // Encoding errors are raised outside the parser context, through libxml2's
        // per-thread error handler; route them to the collector instead of stderr.
        xmlSetStructuredErrorFunc(context, { context, error in
            guard let context, let error else { return }
            HTMLSAXParser.withCollector(context) { $0.structuredError(error) }
        })
        defer {
            xmlSetStructuredErrorFunc(nil, nil)
            if let buffer = parser.pointee.input?.pointee.buf, buffer.pointee.error != 0 { collector.encodingFailed = true }
            collector.parser = nil
            htmlFreeParserCtxt(parser)
        }
        collector.parser = parser
        let options = HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue
            | HTML_PARSE_NONET.rawValue | HTML_PARSE_IGNORE_ENC.rawValue
        htmlCtxtUseOptions(parser, Int32(options))
        if encoding == "UTF-8" {
            xmlSwitchEncoding(parser, XML_CHAR_ENCODING_UTF8)
        } else {
            guard let handler = xmlFindCharEncodingHandler(encoding) else { return .unsupportedEncoding }
            xmlSwitchToEncoding(parser, handler)
        }
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            htmlParseChunk(parser, nil, 0, 1)
            return .finished
        }
        // The whole document in one push, as the benchmark floor does.
        htmlParseChunk(parser, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), Int32(bytes.count), 1)
        return .finished
    }

    /// Calls `body` with the collector behind a callback's context pointer. The parse
    /// function keeps the collector alive, so no retain is needed per event.
    @inline(__always)
    private static func withCollector(_ context: UnsafeMutableRawPointer?, _ body: (HTMLEventCollector) -> Void) {
        Unmanaged<HTMLEventCollector>.fromOpaque(context!)._withUnsafeGuaranteedRef(body)
    }

    private static func makeHandler() -> htmlSAXHandler {
        var sax = htmlSAXHandler()
        sax.startElement = { context, name, attributes in
            guard let name else { return }
            HTMLSAXParser.withCollector(context) { $0.startElement(name, attributes) }
        }
        sax.endElement = { context, _ in
            HTMLSAXParser.withCollector(context) { $0.endElement() }
        }
        sax.characters = { context, bytes, length in
            guard let bytes, length > 0 else { return }
            HTMLSAXParser.withCollector(context) { $0.characters(bytes, Int(length)) }
        }
        // Whitespace between inline elements separates words.
        sax.ignorableWhitespace = sax.characters
        // <script> and <style> content arrives here.
        sax.cdataBlock = sax.characters
        // serror is only consulted when the handler is marked as a SAX2 one; the HTML
        // parser still reports elements through the SAX1 startElement/endElement.
        sax.initialized = XML_SAX2_MAGIC
        sax.serror = { context, error in
            guard let context, let error else { return }
            HTMLSAXParser.withCollector(context) { $0.structuredError(error) }
        }
        return sax
    }
}
