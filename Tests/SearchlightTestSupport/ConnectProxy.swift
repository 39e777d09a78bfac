import Foundation
import Glibc
import Synchronization

/// A small HTTP proxy on 127.0.0.1 for tests: it answers CONNECT by tunnelling to the
/// named target and refuses everything else (502), logging every request line, so tests
/// can see whether a client used it and what it asked it to reach.
public final class ConnectProxy: Sendable {
    public let port: UInt16
    private let listener: Int32
    private let log = Mutex<[String]>([])
    private let stopped = Atomic<Bool>(false)

    public init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) } }
        guard bound == 0, listen(listener, 64) == 0 else { throw ProxyError() }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        port = UInt16(bigEndian: address.sin_port)
        self.listener = listener
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    struct ProxyError: Error {}

    public var url: String { "http://127.0.0.1:\(port)" }

    /// Request lines received (`CONNECT 127.0.0.1:8443 HTTP/1.1`, `GET http://… HTTP/1.1`).
    public var requests: [String] { log.withLock { $0 } }

    public func stop() {
        stopped.store(true, ordering: .relaxed)
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while !stopped.load(ordering: .relaxed) {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            let thread = Thread { [self] in serve(client) }
            thread.start()
        }
    }

    private func serve(_ client: Int32) {
        defer { close(client) }
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while head.count < 16_384, read(client, &byte, 1) == 1 {
            head.append(byte)
            if head.suffix(4) == [13, 10, 13, 10] { break }
        }
        let line = String(decoding: head.prefix { $0 != 13 }, as: UTF8.self)
        log.withLock { $0.append(line) }
        let parts = line.split(separator: " ")
        guard parts.count == 3, parts[0] == "CONNECT", let colon = parts[1].lastIndex(of: ":"),
            let port = UInt16(parts[1][parts[1].index(after: colon)...])
        else {
            _ = "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".withCString { write(client, $0, strlen($0)) }
            return
        }
        let host = String(parts[1][..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(upstream) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host == "localhost" ? "127.0.0.1" : host, &address.sin_addr) == 1,
            withUnsafePointer(to: &address, {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }) == 0
        else {
            _ = "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n".withCString { write(client, $0, strlen($0)) }
            return
        }
        _ = "HTTP/1.1 200 Connection established\r\n\r\n".withCString { write(client, $0, strlen($0)) }
        var fds = [pollfd(fd: client, events: Int16(POLLIN), revents: 0), pollfd(fd: upstream, events: Int16(POLLIN), revents: 0)]
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while poll(&fds, 2, 10_000) > 0 {
            for (index, fd) in fds.enumerated() where fds[index].revents != 0 {
                let count = read(fd.fd, &buffer, buffer.count)
                if count <= 0 { return }
                let other = index == 0 ? upstream : client
                var sent = 0
                while sent < count {
                    let written = buffer.withUnsafeBytes { write(other, $0.baseAddress! + sent, count - sent) }
                    if written <= 0 { return }
                    sent += written
                }
            }
        }
    }
}
