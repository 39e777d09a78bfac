/// Something in a page that could not be read as written. Extraction never fails: it
/// returns what it could and says what was broken and where.
public struct ExtractionWarning: Sendable, Hashable, CustomStringConvertible {
    /// A stable machine-readable kind, e.g. `json-ld-invalid`.
    public var code: Code
    public var message: String
    /// 1-based line in the document, when known.
    public var line: Int?
    /// 1-based column on that line, when known (counted from the start of the line for
    /// the block's first line as for the others, in bytes).
    public var column: Int?

    public init(_ code: Code, _ message: String, line: Int? = nil, column: Int? = nil) {
        self.code = code
        self.message = message
        self.line = line
        self.column = column
    }

    public var description: String {
        let place = line.map { line in column.map { "line \(line), column \($0): " } ?? "line \(line): " } ?? ""
        return "\(place)\(message) [\(code.rawValue)]"
    }

    /// Warning kinds. A struct rather than an enum so kinds can be added without breaking
    /// callers that switch on them.
    public struct Code: RawRepresentable, Sendable, Hashable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The declared charset is unknown; the page was read with a fallback.
        public static let unknownCharset = Code(rawValue: "charset-unknown")
        /// Bytes that are not valid in the page's charset were replaced with U+FFFD.
        public static let invalidBytes = Code(rawValue: "invalid-bytes")
        /// libxml2 reported malformed HTML (counted; the first few are listed).
        public static let malformedHTML = Code(rawValue: "html-malformed")
        /// A JSON-LD block needed repairs or could not be read completely.
        public static let jsonLDRepaired = Code(rawValue: "json-ld-repaired")
        public static let jsonLDInvalid = Code(rawValue: "json-ld-invalid")
        /// Microdata that could not be followed (itemref to a missing id, cycles, depth).
        public static let microdata = Code(rawValue: "microdata")
        /// A size or depth limit cut extraction short.
        public static let limitReached = Code(rawValue: "limit-reached")
        /// A meta value that does not follow its family's syntax.
        public static let invalidMarkup = Code(rawValue: "markup-invalid")
        /// The input does not look like HTML at all.
        public static let notHTML = Code(rawValue: "not-html")
    }
}
