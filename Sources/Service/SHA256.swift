import CLibCrypto

/// SHA-256 through OpenSSL's libcrypto: API keys are stored as the hash of their secret,
/// device ids as the hash of a secret salt and the id.
enum SHA256 {
    static func hash(_ data: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        data.withUnsafeBufferPointer { input in
            _ = CLibCrypto.SHA256(input.baseAddress, input.count, &digest)
        }
        return digest
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
        }.joined()
    }

    /// Compares two digests in time that does not depend on where they differ.
    static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    /// `count` bytes from the system's cryptographically secure generator.
    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }
}
