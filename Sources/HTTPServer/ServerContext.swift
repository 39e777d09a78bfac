import CMicroHTTPD
import Dispatch
import FoundationEssentials
import Glibc
import TextUtilities
import HTTPTypes
import Synchronization

/// What libmicrohttpd's callbacks reach through their context pointer.
final class ServerContext: @unchecked Sendable {
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
    /// The request-target limits libmicrohttpd's URI callback reads (written once here).
    let targetLimits: UnsafeMutablePointer<sl_mhd_target_limits>

    init(handler: @escaping HTTPServer.Handler, admission: HTTPServer.Admission?, configuration: HTTPServer.Configuration) {
        self.handler = handler
        self.admission = admission
        self.maximumBodyBytes = configuration.maximumBodyBytes
        self.bodyDeadline = configuration.bodyDeadline
        self.budget = BodyBudget(configuration)
        self.refusal = configuration.refusal
        self.tlsKey = configuration.tls.map { strdup($0.privateKeyPEM) }
        self.tlsCertificate = configuration.tls.map { strdup($0.certificatePEM) }
        targetLimits = .allocate(capacity: 1)
        targetLimits.initialize(to: sl_mhd_target_limits(maximum_bytes: max(256, configuration.maximumTargetBytes),
                                                         maximum_parameters: max(1, configuration.maximumQueryParameters)))
    }

    var maximumTargetBytes: Int { targetLimits.pointee.maximum_bytes }
    var maximumQueryParameters: Int { targetLimits.pointee.maximum_parameters }

    deinit {
        free(tlsKey)
        free(tlsCertificate)
        targetLimits.deallocate()
    }

    /// The marker libmicrohttpd's URI callback left for a request whose target is past a
    /// limit (``sl_mhd_check_target``); nil for any other request.
    static func oversizedTarget(_ pointer: UnsafeMutableRawPointer?) -> OversizedTarget? {
        guard let pointer else { return nil }
        if pointer == sl_mhd_target_too_long() { return .tooLong }
        if pointer == sl_mhd_too_many_parameters() { return .tooManyParameters }
        return nil
    }

    enum OversizedTarget {
        case tooLong, tooManyParameters
    }

    /// libmicrohttpd's access handler: called once when the headers are in, once per
    /// piece of request body, and once more when the body is complete.
    func handle(
        _ connection: OpaquePointer, _ url: UnsafePointer<CChar>?, _ method: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?,
        _ uploadData: UnsafePointer<CChar>?, _ uploadSize: UnsafeMutablePointer<Int>,
        _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        if let oversized = Self.oversizedTarget(requestContext.pointee) {
            // The request is refused, its body (if any) read and dropped as any refused one's.
            let state = RequestState(budget: budget)
            requestContext.pointee = Unmanaged.passRetained(state).toOpaque()
            let message = switch oversized {
            case .tooLong: "the request target is longer than \(maximumTargetBytes) bytes"
            case .tooManyParameters: "the request target has more than \(maximumQueryParameters) query parameters"
            }
            var response = refusal(414, "uri-too-long", message)
            response.headers.append(HTTPField("Connection", "close"))
            return Self.queue(response, on: connection)
        }
        guard let statePointer = requestContext.pointee else {
            // The head is in; no body byte has been read yet.
            let state = RequestState(budget: budget)
            requestContext.pointee = Unmanaged.passRetained(state).toOpaque()
            let head = request(connection, url, method, body: [], tooLarge: false, admission: nil)
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
        state.countInFlight(on: self)
        let response = handler(request(connection, url, method, body: state.body, tooLarge: state.tooLarge, admission: state.context))
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
                         body: [UInt8], tooLarge: Bool, admission: (any Sendable)?) -> HTTPServerRequest {
        HTTPServerRequest(
            method: method.map { String(cString: $0) } ?? "GET", path: url.map { String(cString: $0) } ?? "/",
            rawQueryItems: Self.values(connection, .GET_ARGUMENT_KIND).map { (name: $0.name, value: $0.value) },
            headers: Self.values(connection, .HEADER_KIND).map { HTTPField($0.name, $0.value ?? "") },
            body: body, bodyTooLarge: tooLarge, remoteAddress: Self.clientAddress(connection), admission: admission)
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
final class RequestState {
    let budget: BodyBudget
    var body: [UInt8] = []
    var tooLarge = false
    /// The budget ran out while the body arrived: the rest is read and dropped, and the
    /// request answered 503.
    var overBudget = false
    private(set) var holder = BodyAllowance.Holder.everyone
    private(set) var context: (any Sendable)?
    private(set) var limit = Int.max
    private var deadline: UInt64 = .max
    /// Bytes of the server's body budget this request holds.
    private var charged = 0
    private var holdsUploadSlot = false
    /// The server counting this request in flight (``countInFlight(on:)``).
    private var inFlight: ServerContext?

    init(budget: BodyBudget) {
        self.budget = budget
    }

    func start(_ allowance: BodyAllowance, limit: Int, deadline seconds: Double) {
        holder = allowance.holder
        context = allowance.context
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

    /// Counts the request in `server`'s requests in flight until it is over: a graceful stop
    /// waits until its response is sent, not only until its handler returns (the response
    /// is written after, and closing the connection then would lose it).
    func countInFlight(on server: ServerContext) {
        server.active.add(1, ordering: .relaxed)
        inFlight = server
    }

    /// The request is over (answered, or its connection closed).
    func finish() {
        inFlight?.active.subtract(1, ordering: .relaxed)
        inFlight = nil
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
