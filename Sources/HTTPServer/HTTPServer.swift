import CMicroHTTPD
import Dispatch
import FoundationEssentials
import Glibc
import TextUtilities
import HTTPTypes
import Synchronization

/// A small Swift face on libmicrohttpd: one handler function, requests read whole,
/// responses given whole or streamed, optional TLS, and a graceful stop.
/// <https://www.gnu.org/software/libmicrohttpd/manual/libmicrohttpd.html>
///
/// The handler runs on libmicrohttpd's threads, several at once; it must be thread-safe.
/// Serves the demo web, the test fixture sites and the Searchlight API.
public final class HTTPServer: Sendable {
    public struct Configuration: Sendable {
        /// An IPv4 or IPv6 address to listen on.
        public var host = "127.0.0.1"
        /// 0 picks a free port; see ``HTTPServer/port``.
        public var port: UInt16 = 0
        public var tls: TLS?
        public var threading = Threading.threadPerConnection
        /// Seconds of inactivity before a connection is closed.
        public var connectionTimeout: UInt32 = 30
        /// Larger request bodies are refused: with a 413 before any byte of the body is read
        /// when the Content-Length says so, else the handler sees ``HTTPServerRequest/bodyTooLarge``.
        public var maximumBodyBytes = 1 << 20
        /// Request bodies buffered at once, over all connections, charged as their bytes
        /// arrive (a declared length reserves nothing); a request whose body would pass it
        /// is answered 503 with `Retry-After`. Anonymous bodies (``BodyAllowance/Holder/anonymous(network:)``)
        /// draw on a budget of their own instead.
        public var maximumBufferedBodyBytes = 64 << 20
        /// The most of ``maximumBufferedBodyBytes`` one principal (an API key) holds at once,
        /// so that one tenant's uploads leave room for the others'.
        public var maximumBufferedBodyBytesPerPrincipal = 16 << 20
        /// Anonymous request bodies buffered at once, over all connections.
        public var maximumAnonymousBodyBytes = 1 << 20
        /// Anonymous requests with a body in progress at once from one client network.
        public var maximumAnonymousUploadsPerNetwork = 4
        /// Seconds a request body may take to arrive from its head on; a slower one has its
        /// connection closed (``BodyAllowance/maximumSeconds`` may shorten it).
        public var bodyDeadline: Double = 60
        /// Connections open at once; more are closed as they arrive. Kept below the
        /// process's file-descriptor limit.
        public var connectionLimit = 1024
        /// Connections open at once from one client address, so one client cannot take
        /// every connection (a slowloris).
        public var perAddressConnectionLimit = 64
        /// Memory per connection for the request line, headers and query parameters
        /// (libmicrohttpd's pool; touched only as used). Requests that do not fit are
        /// answered 414 or 431 by libmicrohttpd.
        public var connectionMemoryBytes = 256 * 1024
        /// The body of the server's own refusals (413 for a declared body over the limit, 503
        /// when the body budget is spent), from the status, a short code and a message: an
        /// API answers in its own error format.
        public var refusal: @Sendable (_ status: Int, _ code: String, _ message: String) -> HTTPServerResponse = { status, _, message in
            .text(message + "\n", status: status)
        }

        public init() {}
    }

    public struct TLS: Sendable {
        public var certificatePEM: String
        public var privateKeyPEM: String

        public init(certificatePEM: String, privateKeyPEM: String) {
            self.certificatePEM = certificatePEM
            self.privateKeyPEM = privateKeyPEM
        }
    }

    public enum Threading: Sendable {
        /// A thread per connection: handlers may block (slow fixture servers).
        case threadPerConnection
        /// A fixed pool of epoll threads: for throughput (the API).
        case pool(Int)
    }

    public typealias Handler = @Sendable (HTTPServerRequest) -> HTTPServerResponse
    /// Sees a request when its head has arrived (``HTTPServerRequest/body`` empty) and may
    /// answer it at once — a missing key, a refused content type — before any body byte is
    /// read or buffered, or say whose budget its body is charged to.
    public typealias Admission = @Sendable (HTTPServerRequest) -> AdmissionDecision

    /// The port the server listens on.
    public let port: UInt16
    public let configuration: Configuration
    private let daemon: Mutex<DaemonHandle?>
    private let context: ServerContext

    public init(configuration: Configuration = Configuration(), admission: Admission? = nil, handler: @escaping Handler)
        throws(HTTPServerError)
    {
        self.configuration = configuration
        let context = ServerContext(handler: handler, admission: admission, configuration: configuration)
        self.context = context
        var flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_ITC.rawValue
        switch configuration.threading {
        // poll(), not select(): a process holding a thousand descriptors (a busy crawler, a
        // test of many connections) would otherwise get sockets select() cannot watch.
        case .threadPerConnection: flags |= MHD_USE_THREAD_PER_CONNECTION.rawValue | MHD_USE_POLL.rawValue
        case .pool: flags |= MHD_USE_EPOLL.rawValue
        }
        if configuration.tls != nil { flags |= MHD_USE_TLS.rawValue }
        guard let address = SocketAddress(host: configuration.host, port: configuration.port) else {
            throw HTTPServerError("cannot listen on '\(configuration.host)': not an IP address")
        }
        if address.isIPv6 { flags |= MHD_USE_IPv6.rawValue }
        let started: OpaquePointer? = address.withSockaddr { sockaddr in
            var options = sl_mhd_options()
            options.flags = flags
            options.bind_address = sockaddr
            options.connection_timeout = configuration.connectionTimeout
            options.connection_limit = UInt32(Self.connectionLimit(configuration.connectionLimit))
            options.per_ip_connection_limit = UInt32(max(1, configuration.perAddressConnectionLimit))
            options.connection_memory_limit = max(32 * 1024, configuration.connectionMemoryBytes)
            if case .pool(let threads) = configuration.threading { options.thread_pool_size = UInt32(max(1, threads)) }
            options.tls_key_pem = context.tlsKey.map { UnsafePointer($0) }
            options.tls_cert_pem = context.tlsCertificate.map { UnsafePointer($0) }
            options.completed = { _, _, requestContext, _ in
                guard let requestContext, let state = requestContext.pointee else { return }
                Unmanaged<RequestState>.fromOpaque(state).takeRetainedValue().finish()
                requestContext.pointee = nil
            }
            // Keep paths and query parameters as sent: handlers decode what they need.
            options.unescape = { _, _, text in text.map { strlen($0) } ?? 0 }
            return sl_mhd_start(&options, { contextPointer, connection, url, method, version, uploadData, uploadSize, requestContext in
                Unmanaged<ServerContext>.fromOpaque(contextPointer!).takeUnretainedValue()
                    .handle(connection!, url, method, version, uploadData, uploadSize!, requestContext!)
            }, Unmanaged.passUnretained(context).toOpaque())
        }
        guard let started else {
            throw HTTPServerError("cannot listen on \(configuration.host):\(configuration.port) (address in use, or TLS unavailable)")
        }
        self.daemon = Mutex(DaemonHandle(pointer: started))
        self.port = sl_mhd_bound_port(started)
    }

    deinit {
        stop(gracePeriod: 0)
    }

    /// `wanted`, but at most the file descriptors this process may open less a margin for
    /// its own files; the soft limit is first raised to the hard one.
    static func connectionLimit(_ wanted: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return min(wanted, 900) }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        let available = limit.rlim_cur == rlim_t.max ? UInt64(Int32.max) : UInt64(limit.rlim_cur)
        return max(1, min(wanted, Int(min(available, UInt64(Int32.max))) - 128))
    }

    /// Request bodies buffered right now, in bytes.
    public var bufferedBodyBytes: Int { context.buffered }

    /// `http://host:port` or `https://host:port`.
    public var baseURL: String {
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return "\(configuration.tls == nil ? "http" : "https")://\(host):\(port)"
    }

    /// Requests being handled right now.
    public var activeRequests: Int { context.active.load(ordering: .relaxed) }

    /// Stops accepting connections, lets running requests finish for up to `gracePeriod`
    /// seconds, then closes everything. Safe to call more than once.
    public func stop(gracePeriod: Double = 5) {
        daemon.withLock { daemon in
            guard let running = daemon?.pointer else { return }
            let listener = MHD_quiesce_daemon(running)
            if listener >= 0 { close(listener) }
            let deadline = Date().addingTimeInterval(gracePeriod)
            while context.active.load(ordering: .relaxed) > 0, Date() < deadline { usleep(10_000) }
            MHD_stop_daemon(running)
            daemon = nil
        }
    }
}

/// The running daemon.
private struct DaemonHandle: @unchecked Sendable {
    // @unchecked: the pointer is only used under the server's mutex, to stop the daemon;
    // libmicrohttpd's own threads never see this value.
    let pointer: OpaquePointer
}

/// Why a server could not start.
public struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// What libmicrohttpd's callbacks reach through their context pointer.
private final class ServerContext: @unchecked Sendable {
    // @unchecked: `handler`, `admission` and the limits are immutable; `active` and
    // `buffered` are atomic; the TLS strings are written once in init, read by
    // libmicrohttpd while the daemon runs and freed in deinit, after the server (which owns
    // this context) has stopped it.
    let handler: HTTPServer.Handler
    let admission: HTTPServer.Admission?
    let maximumBodyBytes: Int
    let refusal: @Sendable (Int, String, String) -> HTTPServerResponse
    let active = Atomic<Int>(0)
    /// Bytes held by request bodies in progress, by whose budget they count against.
    let budget: BodyBudget
    var buffered: Int { budget.total }
    let tlsKey: UnsafeMutablePointer<CChar>?
    let tlsCertificate: UnsafeMutablePointer<CChar>?
    let bodyDeadline: Double

    init(handler: @escaping HTTPServer.Handler, admission: HTTPServer.Admission?, configuration: HTTPServer.Configuration) {
        self.handler = handler
        self.admission = admission
        self.maximumBodyBytes = configuration.maximumBodyBytes
        self.bodyDeadline = configuration.bodyDeadline
        self.budget = BodyBudget(configuration)
        self.refusal = configuration.refusal
        self.tlsKey = configuration.tls.map { strdup($0.privateKeyPEM) }
        self.tlsCertificate = configuration.tls.map { strdup($0.certificatePEM) }
    }

    deinit {
        free(tlsKey)
        free(tlsCertificate)
    }

    /// libmicrohttpd's access handler: called once when the headers are in, once per
    /// piece of request body, and once more when the body is complete.
    func handle(
        _ connection: OpaquePointer, _ url: UnsafePointer<CChar>?, _ method: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?,
        _ uploadData: UnsafePointer<CChar>?, _ uploadSize: UnsafeMutablePointer<Int>,
        _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        guard let statePointer = requestContext.pointee else {
            // The head is in; no body byte has been read yet.
            let state = RequestState(budget: budget)
            requestContext.pointee = Unmanaged.passRetained(state).toOpaque()
            let head = request(connection, url, method, body: [], tooLarge: false)
            // RFC 9112 §3.2: "A server MUST respond with a 400 (Bad Request) status code to
            // any HTTP/1.1 request message that lacks a Host header field".
            if head.header("Host") == nil, let version, strcmp(version, "HTTP/1.1") == 0 {
                return Self.queue(refusal(400, "bad-request", "an HTTP/1.1 request needs a Host header"), on: connection)
            }
            if let problem = MessageFraming.problem(head.headers) {
                var response = refusal(400, "bad-request", problem)
                response.headers.append(HTTPField("Connection", "close"))
                return Self.queue(response, on: connection)
            }
            var allowance = BodyAllowance.standard
            switch admission?(head) ?? .accept(.standard) {
            case .answer(let answer): return Self.queue(answer, on: connection)
            case .accept(let accepted): allowance = accepted
            }
            let limit = min(maximumBodyBytes, allowance.maximumBytes ?? maximumBodyBytes)
            state.start(allowance, limit: limit, deadline: min(bodyDeadline, allowance.maximumSeconds ?? bodyDeadline))
            if let declared = head.header("Content-Length").flatMap({ Int($0.trimmingASCIIWhitespace()) }), declared > limit {
                return Self.queue(refusal(413, "too-large", "the body is larger than \(limit) bytes"), on: connection)
            }
            if head.header("Content-Length").map({ $0.trimmingASCIIWhitespace() != "0" }) ?? (head.header("Transfer-Encoding") != nil),
                !state.takeUploadSlot()
            {
                return Self.queue(busy, on: connection)
            }
            return .YES
        }
        let state = Unmanaged<RequestState>.fromOpaque(statePointer).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            defer { uploadSize.pointee = 0 }
            // A body dribbled in to hold a connection (and its share) is cut off.
            if state.pastDeadline { return .NO }
            guard !state.tooLarge, !state.overBudget, let uploadData else { return .YES }
            let count = uploadSize.pointee
            if state.body.count + count > state.limit {
                state.tooLarge = true
                state.release()
                state.body = []
                return .YES
            }
            // Bytes are charged as they arrive, not from the declared length.
            guard state.charge(count) else {
                state.overBudget = true
                state.release()
                state.body = []
                return .YES
            }
            state.body.append(contentsOf: UnsafeRawBufferPointer(start: uploadData, count: count))
            return .YES
        }
        if state.overBudget { return Self.queue(busy, on: connection) }
        active.add(1, ordering: .relaxed)
        defer { active.subtract(1, ordering: .relaxed) }
        let response = handler(request(connection, url, method, body: state.body, tooLarge: state.tooLarge))
        state.body = []
        state.release()
        return Self.queue(response, on: connection)
    }

    private var busy: HTTPServerResponse {
        var response = refusal(503, "busy", "the server is receiving too many request bodies at once; try again")
        response.headers.append(HTTPField("Retry-After", "1"))
        return response
    }

    private func request(_ connection: OpaquePointer, _ url: UnsafePointer<CChar>?, _ method: UnsafePointer<CChar>?,
                         body: [UInt8], tooLarge: Bool) -> HTTPServerRequest {
        HTTPServerRequest(
            method: method.map { String(cString: $0) } ?? "GET", path: url.map { String(cString: $0) } ?? "/",
            rawQueryItems: Self.values(connection, .GET_ARGUMENT_KIND).map { (name: $0.name, value: $0.value) },
            headers: Self.values(connection, .HEADER_KIND).map { HTTPField($0.name, $0.value ?? "") },
            body: body, bodyTooLarge: tooLarge, remoteAddress: Self.clientAddress(connection))
    }

    private static func values(_ connection: OpaquePointer, _ kind: MHD_ValueKind) -> [(name: String, value: String?)] {
        let collected = ValueCollector()
        MHD_get_connection_values(connection, kind, { context, _, key, value in
            guard let context, let key else { return .YES }
            Unmanaged<ValueCollector>.fromOpaque(context).takeUnretainedValue().items.append(
                (String(cString: key), value.map { String(cString: $0) }))
            return .YES
        }, Unmanaged.passUnretained(collected).toOpaque())
        return collected.items
    }

    private static func clientAddress(_ connection: OpaquePointer) -> String? {
        guard let address = sl_mhd_client_address(connection) else { return nil }
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let length = socklen_t(address.pointee.sa_family == sa_family_t(AF_INET6) ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
        guard getnameinfo(address, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else { return nil }
        return String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func queue(_ response: HTTPServerResponse, on connection: OpaquePointer) -> MHD_Result {
        let made: OpaquePointer?
        switch response.body {
        case .bytes(let bytes):
            made = bytes.withUnsafeBytes { buffer in
                MHD_create_response_from_buffer(buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress), .RESPMEM_MUST_COPY)
            }
        case .stream(let next):
            let stream = Unmanaged.passRetained(StreamState(next: next)).toOpaque()
            made = MHD_create_response_from_callback(sl_mhd_size_unknown(), 32 * 1024, { context, _, buffer, maximum in
                Unmanaged<StreamState>.fromOpaque(context!).takeUnretainedValue().read(into: buffer!, maximum: maximum)
            }, stream, { context in
                Unmanaged<StreamState>.fromOpaque(context!).release()
            })
        }
        guard let made else { return .NO }
        defer { MHD_destroy_response(made) }
        for field in response.headers { MHD_add_response_header(made, field.name, field.value) }
        return MHD_queue_response(connection, UInt32(response.status), made)
    }
}

/// A request's body as it arrives, and its share of the server's body budget; owned by
/// libmicrohttpd's per-request context pointer.
private final class RequestState {
    let budget: BodyBudget
    var body: [UInt8] = []
    var tooLarge = false
    /// The budget ran out while the body arrived: the rest is read and dropped, and the
    /// request answered 503.
    var overBudget = false
    private(set) var holder = BodyAllowance.Holder.everyone
    private(set) var limit = Int.max
    private var deadline: UInt64 = .max
    /// Bytes of the server's body budget this request holds.
    private var charged = 0
    private var holdsUploadSlot = false

    init(budget: BodyBudget) {
        self.budget = budget
    }

    func start(_ allowance: BodyAllowance, limit: Int, deadline seconds: Double) {
        holder = allowance.holder
        self.limit = limit
        deadline = DispatchTime.now().uptimeNanoseconds &+ UInt64(max(0, seconds) * 1e9)
    }

    var pastDeadline: Bool { DispatchTime.now().uptimeNanoseconds > deadline }

    func takeUploadSlot() -> Bool {
        guard budget.takeUploadSlot(holder) else { return false }
        holdsUploadSlot = true
        return true
    }

    func charge(_ bytes: Int) -> Bool {
        guard budget.charge(bytes, to: holder) else { return false }
        charged += bytes
        return true
    }

    func release() {
        budget.release(charged, from: holder)
        charged = 0
    }

    /// The request is over (answered, or its connection closed).
    func finish() {
        release()
        if holdsUploadSlot { budget.releaseUploadSlot(holder) }
        holdsUploadSlot = false
        body = []
    }
}

private final class ValueCollector {
    var items: [(name: String, value: String?)] = []
}

/// A streamed response body; libmicrohttpd calls `read` from one thread at a time.
private final class StreamState {
    let next: @Sendable () -> [UInt8]?
    private var pending: [UInt8] = []
    private var offset = 0

    init(next: @escaping @Sendable () -> [UInt8]?) {
        self.next = next
    }

    func read(into buffer: UnsafeMutablePointer<CChar>, maximum: Int) -> Int {
        while offset >= pending.count {
            guard let piece = next() else { return sl_mhd_end_of_stream() }
            pending = piece
            offset = 0
        }
        let count = min(maximum, pending.count - offset)
        pending.withUnsafeBytes { source in
            UnsafeMutableRawPointer(buffer).copyMemory(from: source.baseAddress! + offset, byteCount: count)
        }
        offset += count
        return count
    }
}

/// An IPv4 or IPv6 socket address to bind.
private struct SocketAddress {
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
