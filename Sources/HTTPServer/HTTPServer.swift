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
        /// The longest request target (path and query) answered; a longer one gets 414 with
        /// the limit in its message. 32 KiB holds the longest search the API takes (a query
        /// of 4,096 characters percent-encoded, 64 installed apps of 256 bytes).
        public var maximumTargetBytes = 32 * 1024
        /// Query parameters a request target may hold; more get 414. Each takes a record of
        /// the connection's memory (about 48 bytes): tens of thousands of them left none for
        /// an answer. 2,048 holds the API's longest list (`DELETE /v1/items` with 1,000 ids).
        public var maximumQueryParameters = 2048
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
            options.target_limits = UnsafePointer(context.targetLimits)
            options.completed = { _, _, requestContext, _ in
                guard let requestContext, let state = requestContext.pointee else { return }
                // A request refused by its target before the handler ran holds a marker, not a state.
                if ServerContext.oversizedTarget(state) != nil {
                    requestContext.pointee = nil
                    return
                }
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
            // libmicrohttpd says only that it could not start: the socket says why, else TLS
            // when it was asked for.
            let why = address.bindProblem ?? (configuration.tls != nil ? "TLS could not start with this certificate and key" : "the server could not start")
            throw HTTPServerError("cannot listen on \(configuration.host):\(configuration.port): \(why)")
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

    /// Requests being handled or answered right now (from their handler's start until their
    /// response is sent or their connection closes).
    public var activeRequests: Int { context.active.load(ordering: .relaxed) }

    /// Stops accepting connections, lets running requests finish and their responses go out
    /// for up to `gracePeriod` seconds, then closes everything. Safe to call more than once.
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
