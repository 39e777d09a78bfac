import CLibCrypto

/// SHA-1 of a response body, as WARC records it (`sha1:` + base32): the key for
/// "identical bodies are stored once" and the payload digest of WARC records.
/// OpenSSL's libcrypto computes it.
public struct ContentDigest: Sendable, Hashable, CustomStringConvertible {
    public let bytes: [UInt8]

    public init(of data: [UInt8]) {
        var digest = [UInt8](repeating: 0, count: Int(SHA_DIGEST_LENGTH))
        data.withUnsafeBufferPointer { input in
            _ = SHA1(input.baseAddress, input.count, &digest)
        }
        bytes = digest
    }

    /// `sha1:` and the RFC 4648 base32 form, as in `WARC-Payload-Digest`.
    public var description: String { "sha1:" + Self.base32(bytes) }

    static func base32(_ data: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        var output = ""
        var buffer: UInt64 = 0
        var bits = 0
        for byte in data {
            buffer = (buffer << 8 | UInt64(byte)) & 0xFFFF
            bits += 8
            while bits >= 5 {
                output.append(alphabet[Int((buffer >> UInt64(bits - 5)) & 31)])
                bits -= 5
            }
        }
        if bits > 0 { output.append(alphabet[Int((buffer << UInt64(5 - bits)) & 31)]) }
        while output.count % 8 != 0 { output.append("=") }
        return output
    }
}
