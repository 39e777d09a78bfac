import FoundationEssentials
import Glibc
import Items

/// Little-endian integers and floats into a growing byte buffer (postings' varints are
/// written with ``writeVarint(_:_:_:)``).
struct ByteWriter {
    var bytes: [UInt8] = []

    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    var count: Int { bytes.count }

    mutating func u16(_ value: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
    }

    mutating func u32(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func u64(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func f32(_ value: Float) { u32(value.bitPattern) }

    mutating func append(_ other: UnsafeRawBufferPointer) { bytes.append(contentsOf: other) }
}

/// Bytes in a buffer of its own, appended with one copy each and grown by doubling (an
/// array's append of a few bytes cost more than the bytes); also a scratch area reused from
/// call to call. Owned by one writer.
final class ByteBuffer {
    private var base: UnsafeMutableRawPointer
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int = 4096) {
        self.capacity = max(16, capacity)
        base = .allocate(byteCount: self.capacity, alignment: 8)
    }

    deinit { base.deallocate() }

    private func ensure(_ needed: Int) {
        guard needed > capacity else { return }
        var size = capacity * 2
        while size < needed { size *= 2 }
        let grown = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        grown.copyMemory(from: base, byteCount: count)
        base.deallocate()
        base = grown
        capacity = size
    }

    func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        ensure(count + bytes.count)
        (base + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// A copy of the bytes in `range`.
    func bytes(_ range: Range<Int>) -> [UInt8] {
        Array(UnsafeRawBufferPointer(start: base + range.lowerBound, count: range.count))
    }

    func removeFirst(_ n: Int) {
        memmove(base, base + n, count - n)
        count -= n
    }

    /// Appends `count` zero bytes (room filled in later with ``store(_:at:)``).
    func append(zeros count: Int) {
        ensure(self.count + count)
        (base + self.count).initializeMemory(as: UInt8.self, repeating: 0, count: count)
        self.count += count
    }

    /// Lets `write` put at most `most` bytes at the end; it returns how many it wrote.
    func append(atMost most: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int) {
        ensure(count + most)
        count += min(most, write((base + count).assumingMemoryBound(to: UInt8.self)))
    }

    /// Overwrites four bytes written before.
    func store(_ value: UInt32, at offset: Int) {
        (base + offset).storeBytes(of: value, as: UInt32.self)
    }

    /// The bytes held (valid until the next change).
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    func removeAll() { count = 0 }

    /// The buffer emptied, as scratch space for at least `bytes` bytes.
    func scratch(_ bytes: Int) -> UnsafeMutablePointer<UInt8> {
        count = 0
        ensure(bytes)
        return base.assumingMemoryBound(to: UInt8.self)
    }
}

/// Reads what ``ByteWriter`` wrote, from raw memory; every read is bounds-checked, and a
/// read past the end yields zero and marks the reader ``failed`` (segments are written by
/// this process's code, but a damaged file must not crash a reader).
struct ByteReader {
    let base: UnsafeRawBufferPointer
    var offset: Int
    private(set) var failed = false

    init(_ base: UnsafeRawBufferPointer, offset: Int = 0) {
        self.base = base
        self.offset = offset
    }

    private mutating func take(_ count: Int) -> Int? {
        guard offset >= 0, count <= base.count - offset else {
            failed = true
            return nil
        }
        defer { offset += count }
        return offset
    }

    mutating func u16() -> UInt16 {
        guard let at = take(2) else { return 0 }
        return UInt16(base[at]) | UInt16(base[at + 1]) << 8
    }

    mutating func u32() -> UInt32 {
        guard let at = take(4) else { return 0 }
        return base.loadUnaligned(fromByteOffset: at, as: UInt32.self).littleEndian
    }

    mutating func u64() -> UInt64 {
        guard let at = take(8) else { return 0 }
        return base.loadUnaligned(fromByteOffset: at, as: UInt64.self).littleEndian
    }

    mutating func f32() -> Float { Float(bitPattern: u32()) }

    mutating func bytes(_ count: Int) -> UnsafeRawBufferPointer {
        guard let at = take(count) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(rebasing: base[at..<(at + count)])
    }
}

/// Encodes `value` as a LEB128 varint at `offset` of `bytes` (which has room for five more
/// bytes); returns the offset after it.
@inline(__always)
func writeVarint(_ value: UInt32, _ bytes: UnsafeMutablePointer<UInt8>, _ offset: Int) -> Int {
    var value = value
    var offset = offset
    while value >= 0x80 {
        bytes[offset] = UInt8(truncatingIfNeeded: value) | 0x80
        value >>= 7
        offset += 1
    }
    bytes[offset] = UInt8(value)
    return offset + 1
}

/// Decodes a LEB128 varint at `offset` of `bytes`, moving `offset` past it; at most five
/// bytes are read, and never past `end`.
@inline(__always)
func readVarint(_ bytes: UnsafePointer<UInt8>, _ offset: inout Int, _ end: Int) -> UInt32 {
    var value: UInt32 = 0
    var shift: UInt32 = 0
    while offset < end {
        let byte = bytes[offset]
        offset += 1
        value |= UInt32(byte & 0x7F) << shift
        if byte < 0x80 || shift >= 28 { return value }
        shift += 7
    }
    return value
}

/// Lexicographic comparison of two byte strings.
@inline(__always)
func compareBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
    let common = min(a.count, b.count)
    if common > 0, let x = a.baseAddress, let y = b.baseAddress {
        let order = memcmp(x, y, common)
        if order != 0 { return Int(order) }
    }
    return a.count - b.count
}
