/// A `Content-Type` value read as RFC 9110 §8.3.1 defines it: `type "/" subtype *( OWS ";"
/// OWS parameter )`, type, subtype and parameter names compared without case, parameter
/// values as tokens or quoted strings. Anything else does not parse: a server that takes
/// "contains json" as JSON accepts `text/html; x=json`.
public struct MediaType: Sendable, Hashable {
    /// `type/subtype` in lower case.
    public var essence: String
    /// Parameter names in lower case, values as given (unquoted).
    public var parameters: [String: String]

    public init?(_ text: String) {
        var rest = Substring(text)
        func skipSpace() { rest = rest.drop { $0 == " " || $0 == "\t" } }
        func token() -> String? {
            let value = rest.prefix { $0.isASCII && Self.tokenCharacters.contains($0) }
            guard !value.isEmpty else { return nil }
            rest = rest.dropFirst(value.count)
            return value.lowercased()
        }
        skipSpace()
        guard let type = token(), rest.first == "/" else { return nil }
        rest = rest.dropFirst()
        guard let subtype = token() else { return nil }
        essence = type + "/" + subtype
        parameters = [:]
        skipSpace()
        while rest.first == ";" {
            rest = rest.dropFirst()
            skipSpace()
            if rest.isEmpty { break }
            guard let name = token(), rest.first == "=" else { return nil }
            rest = rest.dropFirst()
            var value: String
            if rest.first == "\"" {
                rest = rest.dropFirst()
                value = ""
                while let character = rest.first, character != "\"" {
                    if character == "\\" { rest = rest.dropFirst() }
                    guard let next = rest.first else { return nil }
                    value.append(next)
                    rest = rest.dropFirst()
                }
                guard rest.first == "\"" else { return nil }
                rest = rest.dropFirst()
            } else {
                guard let bare = token() else { return nil }
                value = bare
            }
            if parameters[name] == nil { parameters[name] = value }
            skipSpace()
        }
        guard rest.isEmpty else { return nil }
    }

    /// `application/json` or a `+json` type (`application/merge-patch+json`), with no
    /// charset or UTF-8 (RFC 8259 §8.1: JSON between systems is UTF-8).
    public var isJSON: Bool {
        guard essence == "application/json" || (essence.hasPrefix("application/") && essence.hasSuffix("+json")) else { return false }
        guard let charset = parameters["charset"] else { return true }
        return charset.lowercased() == "utf-8" || charset.lowercased() == "utf8"
    }

    private static let tokenCharacters = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
}
