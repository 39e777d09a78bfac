import CMicroHTTPD
import Dispatch
import FoundationEssentials
import Glibc
import TextUtilities
import HTTPTypes
import Synchronization

/// An IPv4 or IPv6 socket address to bind.
struct SocketAddress {
    private let storage: sockaddr_storage
    let isIPv6: Bool

    init?(host: String, port: UInt16) {
        var storage = sockaddr_storage()
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            withUnsafeBytes(of: v4) { source in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: source) } }
            isIPv6 = false
        } else if inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
            withUnsafeBytes(of: v6) { source in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: source) } }
            isIPv6 = true
        } else {
            return nil
        }
        self.storage = storage
    }

    func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>) -> T) -> T {
        var copy = storage
        return withUnsafePointer(to: &copy) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
    }

    /// Why a listening socket cannot be bound here, found by binding one (and closing it at
    /// once): nil when it can.
    var bindProblem: String? {
        let descriptor = socket(isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return "cannot open a socket (\(String(cString: strerror(errno))))" }
        defer { close(descriptor) }
        var reuse: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        let length = socklen_t(isIPv6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
        guard withSockaddr({ bind(descriptor, $0, length) }) != 0 else { return nil }
        switch errno {
        case EADDRINUSE: return "the address is in use: another process listens there"
        case EACCES: return "permission denied: ports below 1024 need privileges"
        case EADDRNOTAVAIL: return "the address is not one of this machine's"
        default: return String(cString: strerror(errno))
        }
    }
}

extension HTTPServer {
    /// A TCP port on 127.0.0.1 that is free right now (for a server that must know its
    /// port before it starts, to put it in what it serves).
    public static func freePort() throws(HTTPServerError) -> UInt16 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw HTTPServerError("cannot open a socket") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0 else { throw HTTPServerError("cannot bind a socket on 127.0.0.1") }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else { throw HTTPServerError("cannot read the socket's port") }
        return UInt16(bigEndian: address.sin_port)
    }
}
