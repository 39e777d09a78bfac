import Foundation
import StoreSeams
import Synchronization

/// How a node knows that a request on its shard routes (`/v1/shard/…`) comes from a router
/// of the same store, now, and for it: a header only processes that can read the store's
/// secret salt can make — an HMAC, under a key derived from the salt, of the request's time,
/// a random nonce, the node it is meant for (its advertised address, ``audience(of:)``),
/// method, path and body — accepted within ``window`` seconds of the node's clock, once
/// (``ReplayGuard``; the nonce keeps two equal requests in one second apart) and only by
/// the node it names. A header seen on the wire cannot be sent again, nor to another node
/// (a fake replica that captured it, or anyone on a plain-http path), nor with another body,
/// nor after it expires. The head part (time, node, method, path) is checked before the body
/// is read, so a stranger's request is not buffered; the body part once it has been.
///
/// `X-Searchlight-Router: t=1790000000,n=<16 hex>,head=<hex>,body=<hex>`
public struct RouterCredential: Sendable {
    public static let header = "X-Searchlight-Router"
    /// How far a request's time may be from the node's clock, either way (routers and
    /// nodes keep time by NTP, within milliseconds of each other).
    public static let window: Double = 10

    private let key: [UInt8]

    public init(salt: [UInt8]) {
        key = SHA256.hmac(key: salt, Array("searchlight-shard-router-v3".utf8))
    }

    /// A node's address as both sides sign it: scheme, host and port in lower case, the
    /// default port written out, no path (`https://Node1.example/` → `https://node1.example:443`).
    public static func audience(of address: String) -> String {
        var text = address.trimmingCharacters(in: .whitespaces).lowercased()
        while text.hasSuffix("/") { text.removeLast() }
        guard let separator = text.range(of: "://") else { return text }
        let scheme = String(text[..<separator.lowerBound])
        var authority = String(text[separator.upperBound...])
        if let slash = authority.firstIndex(of: "/") { authority = String(authority[..<slash]) }
        if let at = authority.lastIndex(of: "@") { authority = String(authority[authority.index(after: at)...]) }
        let hasPort = authority.hasPrefix("[") ? authority.contains("]:") : authority.contains(":")
        if !hasPort { authority += scheme == "https" ? ":443" : ":80" }
        return scheme + "://" + authority
    }

    /// The header for a request sent at `now` to the node advertised at `node`.
    public func value(method: String, path: String, body: [UInt8], node: String, now: Date = Date()) -> String {
        let time = Int(now.timeIntervalSince1970.rounded(.down))
        let nonce = SHA256.hex(SHA256.randomBytes(8))
        let audience = Self.audience(of: node)
        return "t=\(time),n=\(nonce),head=\(SHA256.hex(head(time, nonce, audience, method, path))),"
            + "body=\(SHA256.hex(signature(time, nonce, audience, method, path, body)))"
    }

    /// A presented header's parts.
    package struct Presented: Equatable {
        package var time: Int
        package var nonce: String
        package var head: [UInt8]
        package var body: [UInt8]

        package init?(_ value: String?) {
            guard let value, value.utf8.count <= 200 else { return nil }
            var fields: [Substring: Substring] = [:]
            for part in value.split(separator: ",") {
                guard let equals = part.firstIndex(of: "=") else { return nil }
                fields[part[..<equals]] = part[part.index(after: equals)...]
            }
            guard fields.count == 4, let time = fields["t"].flatMap({ Int($0) }), let nonce = fields["n"], nonce.utf8.count == 16,
                nonce.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }), let head = fields["head"].flatMap({ SHA256.bytes(hex: String($0)) }),
                let body = fields["body"].flatMap({ SHA256.bytes(hex: String($0)) }), head.count == 32, body.count == 32
            else { return nil }
            self.time = time
            self.nonce = String(nonce)
            self.head = head
            self.body = body
        }
    }

    /// Whether the header's time is within the window and its head part signs this method
    /// and path for the node advertised at `node` (this one): checked before the body is read.
    package func acceptsHead(_ value: String?, method: String, path: String, node: String, now: Date) -> Bool {
        guard let presented = Presented(value), abs(Double(presented.time) - now.timeIntervalSince1970) <= Self.window else { return false }
        return SHA256.equal(presented.head, head(presented.time, presented.nonce, Self.audience(of: node), method, path))
    }

    /// Whether the header's body part signs this request with this body, for this node.
    package func acceptsBody(_ value: String?, method: String, path: String, body: [UInt8], node: String) -> Bool {
        guard let presented = Presented(value) else { return false }
        return SHA256.equal(presented.body, signature(presented.time, presented.nonce, Self.audience(of: node), method, path, body))
    }

    private func head(_ time: Int, _ nonce: String, _ audience: String, _ method: String, _ path: String) -> [UInt8] {
        SHA256.hmac(key: key, Array("head\n\(time)\n\(nonce)\n\(audience)\n\(method)\n\(path)".utf8))
    }

    private func signature(_ time: Int, _ nonce: String, _ audience: String, _ method: String, _ path: String, _ body: [UInt8]) -> [UInt8] {
        SHA256.hmac(key: key, Array("body\n\(time)\n\(nonce)\n\(audience)\n\(method)\n\(path)\n".utf8) + SHA256.hash(body))
    }
}

/// The router credentials a node has accepted within the last two windows, so that each is
/// accepted once. Bounded: past ``capacity`` entries the expired go, and if none has, the
/// request is refused (a router sends a few per search; a million in 20 seconds is not one).
package final class ReplayGuard: Sendable {
    package static let capacity = 1 << 20
    private let seen = Mutex([UInt64: Double]())

    package init() {}

    /// True the first time `signature` is offered (at `now`), false after.
    package func first(_ signature: [UInt8], now: Double) -> Bool {
        let id = signature.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return seen.withLock { seen in
            if seen.count >= Self.capacity { seen = seen.filter { now - $0.value <= 2 * RouterCredential.window } }
            guard seen.count < Self.capacity, seen[id] == nil else { return false }
            seen[id] = now
            return true
        }
    }
}
