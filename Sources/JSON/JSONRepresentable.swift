/// A value with a JSON form. Searchlight's output types conform so that `--json`
/// output, reports and API responses are written by one writer, in a fixed key order.
public protocol JSONRepresentable {
    var json: JSONValue { get }
}

extension JSONValue: JSONRepresentable {
    public var json: JSONValue { self }
}

extension String: JSONRepresentable {
    public var json: JSONValue { .string(self) }
}

extension Int: JSONRepresentable {
    public var json: JSONValue { JSONValue(self) }
}

extension Double: JSONRepresentable {
    public var json: JSONValue { JSONValue(self) }
}

extension Bool: JSONRepresentable {
    public var json: JSONValue { .bool(self) }
}

extension Optional: JSONRepresentable where Wrapped: JSONRepresentable {
    public var json: JSONValue { self?.json ?? .null }
}

extension Array: JSONRepresentable where Element: JSONRepresentable {
    public var json: JSONValue { .array(map(\.json)) }
}

extension JSONObject {
    /// Builds an object from members in order; members whose value is `nil` are left out.
    /// Write `.null` explicitly for a key that must appear with a null value.
    public init(omittingNils members: KeyValuePairs<String, JSONValue?>) {
        self.init()
        for (key, value) in members {
            if let value { append(key, value) }
        }
    }
}
