/// A header field of a request or response, as sent: the one header type of the client,
/// the server and the WARC records.
public struct HTTPField: Sendable, Hashable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    /// RFC 9110 §5.1: field names are case-insensitive.
    public func hasName(_ other: String) -> Bool {
        name.utf8.count == other.utf8.count && zip(name.utf8, other.utf8).allSatisfy { asciiLower($0) == asciiLower($1) }
    }

    private func asciiLower(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }
}

extension Array where Element == HTTPField {
    /// The first value of a field.
    public func first(_ name: String) -> String? {
        first { $0.hasName(name) }?.value
    }

    /// Every value of a field, in order.
    public func all(_ name: String) -> [String] {
        filter { $0.hasName(name) }.map(\.value)
    }
}
