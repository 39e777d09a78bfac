import CLibCrypto
import TextUtilities

/// SHA-256 through OpenSSL's libcrypto: API keys are stored as the hash of their secret,
/// device ids as the hash of a secret salt and the id; engagement tokens carry an HMAC.
public enum SHA256 {
    public static func hash(_ data: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        data.withUnsafeBufferPointer { input in
            _ = CLibCrypto.SHA256(input.baseAddress, input.count, &digest)
        }
        return digest
    }

    /// HMAC-SHA256 (RFC 2104) of `data` under `key`.
    public static func hmac(key: [UInt8], _ data: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        var length: UInt32 = 0
        key.withUnsafeBufferPointer { key in
            data.withUnsafeBufferPointer { data in
                _ = HMAC(EVP_sha256(), key.baseAddress, Int32(key.count), data.baseAddress, data.count, &digest, &length)
            }
        }
        return digest
    }

    public static func bytes(hex: String) -> [UInt8]? { Hex.bytes(hex) }

    public static func hex(_ bytes: [UInt8]) -> String { Hex.string(bytes) }

    /// Compares two digests in time that does not depend on where they differ.
    public static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    /// `count` bytes from the system's cryptographically secure generator.
    public static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }
}
