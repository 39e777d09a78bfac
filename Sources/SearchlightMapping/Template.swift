/// A pattern with `{#keyPath#}` placeholders (WACoreDataSpotlight's syntax):
/// `employee_{#firstName#}_{#lastName#}`. Text outside placeholders is kept as written; a
/// value is inserted as text, a missing one as nothing. Pure.
public struct Template: Sendable, Hashable, CustomStringConvertible {
    /// A stretch of literal text, or a key path whose value goes there.
    public enum Part: Sendable, Hashable {
        case text(String)
        case value(RecordKeyPath)
    }

    public var parts: [Part]
    public let source: String

    /// Why a pattern's text is not a template.
    public enum ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        case unclosed
        case keyPath(String, RecordKeyPath.ParseError)

        public var description: String {
            switch self {
            case .unclosed: "a {# without its #}"
            case .keyPath(let path, let error): "{#\(path)#}: \(error)"
            }
        }
    }

    public init(parsing text: String) throws(ParseError) {
        source = text
        parts = []
        var rest = Substring(text)
        while let open = rest.firstRange(of: "{#") {
            if open.lowerBound > rest.startIndex { parts.append(.text(String(rest[..<open.lowerBound]))) }
            guard let close = rest[open.upperBound...].firstRange(of: "#}") else { throw .unclosed }
            let path = String(rest[open.upperBound..<close.lowerBound])
            do throws(RecordKeyPath.ParseError) {
                parts.append(.value(try RecordKeyPath(parsing: path)))
            } catch {
                throw .keyPath(path, error)
            }
            rest = rest[close.upperBound...]
        }
        if !rest.isEmpty { parts.append(.text(String(rest))) }
    }

    /// A template of fixed text (no placeholders).
    public init(literal text: String) {
        source = text
        parts = text.isEmpty ? [] : [.text(text)]
    }

    /// The key paths the template reads.
    public var keyPaths: [RecordKeyPath] {
        parts.compactMap { if case .value(let path) = $0 { path } else { nil } }
    }

    /// The text with each key path's value put in; `value` says nil for a missing one.
    public func render(_ value: (RecordKeyPath) throws -> String?) rethrows -> String {
        var text = ""
        for part in parts {
            switch part {
            case .text(let literal): text += literal
            case .value(let path): text += try value(path) ?? ""
            }
        }
        return text
    }

    public var description: String { source }
}
