import Foundation
import Glibc

/// A TCP connection made by hand, for tests that must misbehave as clients do: send half
/// a request, hold a connection open, start from another loopback address.
public final class RawConnection {
    public let descriptor: Int32

    /// Connects to 127.0.0.1:`port` from `localAddress` (any 127.0.0.0/8 address works on
    /// Linux); nil when the connection is refused.
    public init?(port: UInt16, from localAddress: String = "127.0.0.1") {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, localAddress, &local.sin_addr)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = port.bigEndian
        remote.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, size) } }
        let connected = withUnsafePointer(to: &remote) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, size) } }
        guard bound == 0, connected == 0 else {
            close(descriptor)
            return nil
        }
    }

    deinit { close(descriptor) }

    @discardableResult
    public func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// What arrives within `timeout` seconds, until the peer closes or `until` is seen.
    public func receive(timeout: Double, until marker: String? = nil) -> String {
        var received: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while Date() < deadline {
            var descriptors = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let wait = Int32(max(1, deadline.timeIntervalSinceNow * 1000))
            guard poll(&descriptors, 1, wait) > 0 else { break }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer[0..<count]
            if let marker, String(decoding: received, as: UTF8.self).contains(marker) { break }
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// True when the peer has closed the connection (a read returns end of file at once).
    public var isClosedByPeer: Bool {
        var descriptors = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptors, 1, 0) > 0 else { return false }
        var byte: UInt8 = 0
        return recv(descriptor, &byte, 1, Int32(MSG_PEEK)) <= 0
    }

    /// Raises this process's open-file limit to its hard limit (tests that hold many
    /// connections); returns the limit now in force.
    @discardableResult
    public static func raiseFileLimit() -> Int {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        return Int(min(limit.rlim_cur, rlim_t(Int32.max)))
    }
}
