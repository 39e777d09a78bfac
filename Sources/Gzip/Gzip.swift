import CLibDeflate
import CZlib

/// gzip: decompressing with zlib with a limit on the output (a sitemap.xml.gz, a body),
/// and compressing one WARC record at a time as its own gzip member with libdeflate.
/// <https://www.zlib.net/manual.html>
public enum Gzip {
    public struct Error: Swift.Error, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// True when `bytes` start with the gzip magic number.
    public static func isCompressed(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B
    }

    /// Decompresses gzip (or zlib) data, refusing to produce more than `limit` bytes — a
    /// gzip bomb stops here. Concatenated gzip members are read one after another.
    public static func decompress(_ input: [UInt8], limit: Int) throws(Gzip.Error) -> [UInt8] {
        var output: [UInt8] = []
        var consumed = 0
        while consumed < input.count {
            let (produced, used) = try inflateMember(input, from: consumed, limit: limit - output.count)
            output += produced
            guard used > 0 else { break }
            consumed += used
            // Trailing zero padding after the last member is tolerated.
            if input[consumed...].allSatisfy({ $0 == 0 }) { break }
        }
        return output
    }

    /// As much of gzip data as inflates before it ends or breaks off — a truncated download,
    /// a corrupt tail — and whether it was whole. Only more than `limit` bytes is an error.
    public static func decompressPrefix(_ input: [UInt8], limit: Int) throws(Gzip.Error) -> (bytes: [UInt8], complete: Bool) {
        var output: [UInt8] = []
        var consumed = 0
        while consumed < input.count {
            let member = try inflateMember(input, from: consumed, limit: limit - output.count, partial: true)
            output += member.output
            guard member.complete else { return (output, false) }
            guard member.used > 0 else { break }
            consumed += member.used
            if input[consumed...].allSatisfy({ $0 == 0 }) { break }
        }
        return (output, true)
    }

    private static func inflateMember(_ input: [UInt8], from start: Int, limit: Int) throws(Gzip.Error) -> ([UInt8], Int) {
        let member = try inflateMember(input, from: start, limit: limit, partial: false)
        return (member.output, member.used)
    }

    /// One member; with `partial`, a member that breaks off returns what it gave so far.
    private static func inflateMember(_ input: [UInt8], from start: Int, limit: Int, partial: Bool)
        throws(Gzip.Error) -> (output: [UInt8], used: Int, complete: Bool)
    {
        var stream = z_stream()
        guard sl_inflate_init_gzip(&stream) == Z_OK else { throw Error(message: "zlib: cannot start inflating") }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var status = Z_OK
        let used: Int = input.withUnsafeBufferPointer { source in
            stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress! + start)
            stream.avail_in = UInt32(source.count - start)
            repeat {
                chunk.withUnsafeMutableBufferPointer { buffer in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = UInt32(buffer.count)
                    status = inflate(&stream, Z_NO_FLUSH)
                    output.append(contentsOf: buffer[0..<(buffer.count - Int(stream.avail_out))])
                }
            } while status == Z_OK && output.count <= limit && (stream.avail_in > 0 || stream.avail_out == 0)
            return source.count - start - Int(stream.avail_in)
        }
        guard output.count <= limit else { throw Error(message: "decompressed data is larger than \(limit) bytes") }
        guard status == Z_STREAM_END else {
            if partial { return (output, used, false) }
            throw Error(message: "corrupt or truncated gzip data (zlib \(status): \(stream.msg.map { String(cString: $0) } ?? "no message"))")
        }
        return (output, used, true)
    }

    /// One gzip member holding `input`, written by libdeflate, which compresses a whole
    /// buffer at once several times faster than zlib at the same level and writes the same
    /// standard gzip format (any gzip reader reads it). Level 1–12 (libdeflate's scale).
    public static func compress(_ input: [UInt8], level: Int32 = 6) -> [UInt8] {
        var output: [UInt8] = []
        input.withUnsafeBytes { Compressor(level: level).append(compressing: $0, to: &output) }
        return output
    }

    /// A libdeflate compressor kept for many members: making one allocates its hash tables
    /// (hundreds of KiB, so fresh pages from the kernel each time), which for a WARC record
    /// of 40 KB cost as much as compressing it. One owner; not shared between threads.
    public final class Compressor {
        private let handle: OpaquePointer
        /// Where members are compressed before they are appended; grown to the largest bound.
        private var scratch = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 8)
        private var scratchBytes = 1

        public init(level: Int32) {
            guard let handle = libdeflate_alloc_compressor(max(1, min(12, level))) else {
                fatalError("libdeflate: out of memory for a compressor")
            }
            self.handle = handle
        }

        deinit {
            libdeflate_free_compressor(handle)
            scratch.deallocate()
        }

        /// Appends one gzip member holding `input` to `output`.
        public func append(compressing input: UnsafeRawBufferPointer, to output: inout [UInt8]) {
            let bound = libdeflate_gzip_compress_bound(handle, input.count)
            if bound > scratchBytes {
                scratch.deallocate()
                scratchBytes = bound
                scratch = .allocate(byteCount: bound, alignment: 8)
            }
            let produced = libdeflate_gzip_compress(handle, input.baseAddress, input.count, scratch, bound)
            // The bound guarantees room: 0 ("did not fit") cannot happen.
            precondition(produced > 0, "libdeflate: output exceeded its own bound")
            output.append(contentsOf: UnsafeRawBufferPointer(start: scratch, count: produced))
        }
    }
}
