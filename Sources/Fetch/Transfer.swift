import CCurl
import FoundationEssentials
import HTTPTypes
import TextUtilities
import WebURL

/// One request in flight: owns its libcurl easy handle, receives libcurl's callbacks, and
/// turns the result into a ``FetchResponse``.
///
/// Created, driven and freed on the client's loop thread only; libcurl callbacks reach it
/// through an unretained pointer, valid while the client holds the transfer.
final class Transfer {
    let easy: UnsafeMutableRawPointer
    let request: FetchRequest
    let completion: @Sendable (FetchResponse) -> Void
    private let maximumBodyBytes: Int
    private let addressPolicy: AddressPolicy
    private var requestHeaders: UnsafeMutablePointer<curl_slist>?
    private var connectTo: UnsafeMutablePointer<curl_slist>?
    /// True when connections go to a proxy, whose own address is the operator's choice;
    /// the target was checked before the request started (``ProxyTarget``).
    private let viaProxy: Bool
    private var body: [UInt8] = []
    private var headerLines: [String] = []
    private var statusLine = ""
    private var requestHeaderBlock = ""
    private var exceededBodyLimit = false
    /// The limit of the ``ByteBudget`` a chunk did not fit in.
    private var exceededBudget: Int?
    private var refusedAddress: String?

    init?(request: FetchRequest, configuration: FetchConfiguration, resolveList: UnsafeMutablePointer<curl_slist>?,
          completion: @escaping @Sendable (FetchResponse) -> Void)
    {
        guard let easy = curl_easy_init() else { return nil }
        self.easy = easy
        self.request = request
        self.completion = completion
        self.maximumBodyBytes = request.maximumBodyBytes ?? configuration.maximumBodyBytes
        self.addressPolicy = configuration.addressPolicy
        self.viaProxy = configuration.proxy != nil
        let context = Unmanaged.passUnretained(self).toOpaque()

        sl_easy_setopt_string(easy, CURLOPT_URL, request.url)
        sl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        sl_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https")
        sl_easy_setopt_string(easy, CURLOPT_USERAGENT, configuration.userAgent)
        // Offer every encoding this libcurl decodes (gzip, deflate, br, zstd).
        sl_easy_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, "")
        sl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS)
        // Redirects are followed by the caller, hop by hop, so that each target passes
        // scope, robots and address checks and the chain is kept.
        sl_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0)
        sl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Int(configuration.connectTimeout * 1000))
        sl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, Int((request.timeout ?? configuration.timeout) * 1000))
        sl_easy_setopt_long(easy, CURLOPT_LOW_SPEED_LIMIT, configuration.lowSpeedLimit)
        sl_easy_setopt_long(easy, CURLOPT_LOW_SPEED_TIME, configuration.lowSpeedTime)
        // Checks a declared Content-Length only; the write callback checks decoded bytes.
        sl_easy_setopt_off(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(maximumBodyBytes))
        if let ca = configuration.caCertificatesFile { sl_easy_setopt_string(easy, CURLOPT_CAINFO, ca) }
        if let resolveList { sl_easy_setopt_slist(easy, CURLOPT_RESOLVE, resolveList) }
        if let proxy = configuration.proxy {
            sl_easy_setopt_string(easy, CURLOPT_PROXY, proxy)
            // Always a CONNECT tunnel, to the pinned address: a plain proxied GET would let
            // the proxy resolve the name itself.
            sl_easy_setopt_long(easy, CURLOPT_HTTPPROXYTUNNEL, 1)
            if let entry = request.connectTo {
                connectTo = curl_slist_append(nil, entry)
                sl_easy_setopt_slist(easy, CURLOPT_CONNECT_TO, connectTo)
            }
        } else {
            // "" turns off the proxies libcurl would otherwise take from the environment.
            sl_easy_setopt_string(easy, CURLOPT_PROXY, "")
        }
        if let local = configuration.localAddress { sl_easy_setopt_string(easy, CURLOPT_INTERFACE, "host!" + local) }
        for header in request.headers {
            requestHeaders = curl_slist_append(requestHeaders, "\(header.name): \(header.value)")
        }
        if let requestHeaders { sl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, requestHeaders) }
        if let body = request.body {
            // libcurl copies the bytes; they need not outlive this call.
            sl_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
            if body.isEmpty {
                sl_easy_setopt_string(easy, CURLOPT_COPYPOSTFIELDS, "")
            } else {
                body.withUnsafeBytes { bytes in _ = sl_easy_setopt_ptr(easy, CURLOPT_COPYPOSTFIELDS, bytes.baseAddress) }
            }
        }
        if request.method == "HEAD" {
            sl_easy_setopt_long(easy, CURLOPT_NOBODY, 1)
        } else if request.method != "GET", request.method != "POST" || request.body == nil {
            sl_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, request.method)
        }

        sl_easy_setopt_ptr(easy, CURLOPT_PRIVATE, context)
        sl_easy_setopt_ptr(easy, CURLOPT_WRITEDATA, context)
        sl_easy_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION) { data, size, count, context in
            Transfer.from(context).receiveBody(data, size * count)
        }
        sl_easy_setopt_ptr(easy, CURLOPT_HEADERDATA, context)
        sl_easy_setopt_data_callback(easy, CURLOPT_HEADERFUNCTION) { data, size, count, context in
            Transfer.from(context).receiveHeader(data, size * count)
        }
        sl_easy_setopt_ptr(easy, CURLOPT_OPENSOCKETDATA, context)
        sl_easy_setopt_opensocket_callback(easy) { context, purpose, address in
            Transfer.from(context).openSocket(purpose, address)
        }
        // The debug callback is the one place libcurl shows the request headers it sent.
        guard request.recordsRequestHeaders else { return }
        sl_easy_setopt_long(easy, CURLOPT_VERBOSE, 1)
        sl_easy_setopt_ptr(easy, CURLOPT_DEBUGDATA, context)
        sl_easy_setopt_debug_callback(easy) { _, type, data, size, context in
            if type == CURLINFO_HEADER_OUT, let data, let context {
                Transfer.from(context).requestHeaderBlock += String(decoding: UnsafeRawBufferPointer(start: data, count: size), as: UTF8.self)
            }
            return 0
        }
    }

    deinit {
        curl_easy_cleanup(easy)
        curl_slist_free_all(requestHeaders)
        curl_slist_free_all(connectTo)
    }

    static func from(_ context: UnsafeMutableRawPointer?) -> Transfer {
        Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
    }

    // MARK: callbacks

    private func receiveBody(_ data: UnsafeMutablePointer<CChar>?, _ length: Int) -> Int {
        guard let data else { return 0 }
        if body.count + length > maximumBodyBytes {
            exceededBodyLimit = true
            return 0  // aborts the transfer with CURLE_WRITE_ERROR
        }
        for (index, budget) in request.budgets.enumerated() where !budget.take(length) {
            for taken in request.budgets[..<index] { taken.give(length) }
            exceededBudget = budget.limit
            return 0
        }
        body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length))
        return length
    }

    private func receiveHeader(_ data: UnsafeMutablePointer<CChar>?, _ length: Int) -> Int {
        guard let data else { return 0 }
        let line = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self).trimmingASCIIWhitespace()
        if line.hasPrefix("HTTP/") {
            // A new response (after 100 Continue, or a proxy's): start over.
            statusLine = line
            headerLines.removeAll()
        } else if !line.isEmpty {
            headerLines.append(line)
        }
        return length
    }

    private func openSocket(_ purpose: curlsocktype, _ address: UnsafeMutablePointer<curl_sockaddr>?) -> curl_socket_t {
        guard let address else { return sl_socket_bad() }
        // The sockaddr continues past the 16 bytes of curl_sockaddr.addr for IPv6, so read it
        // in place rather than through a copy of the field.
        let socketAddress = (UnsafeRawPointer(address) + MemoryLayout<curl_sockaddr>.offset(of: \.addr)!)
            .assumingMemoryBound(to: sockaddr.self)
        let ip = IPAddress(socketAddress: socketAddress)
        guard let ip, viaProxy || addressPolicy.allows(ip) else {
            refusedAddress = ip?.description ?? "an unknown address family"
            return sl_socket_bad()
        }
        return socket(address.pointee.family, address.pointee.socktype, address.pointee.protocol)
    }

    // MARK: result

    func makeResponse(result: CURLcode) -> FetchResponse {
        var status = 0
        sl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        var version = 0
        sl_easy_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version)
        var totalMicroseconds: curl_off_t = 0
        sl_easy_getinfo_off(easy, CURLINFO_TOTAL_TIME_T, &totalMicroseconds)
        var wireBytes: curl_off_t = 0
        sl_easy_getinfo_off(easy, CURLINFO_SIZE_DOWNLOAD_T, &wireBytes)
        let headers = headerLines.compactMap { line -> HTTPField? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return HTTPField(String(line[..<colon]), line[line.index(after: colon)...].trimmingASCIIWhitespace())
        }
        return FetchResponse(
            request: request, status: status, headers: headers, statusLine: statusLine, body: body,
            redirectURL: string(CURLINFO_REDIRECT_URL), remoteAddress: string(CURLINFO_PRIMARY_IP),
            httpVersion: Self.versionName(version), requestHeaderBlock: requestHeaderBlock,
            error: error(for: result), totalTime: Double(totalMicroseconds) / 1_000_000, wireBytes: Int(wireBytes))
    }

    private func string(_ info: CURLINFO) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard sl_easy_getinfo_string(easy, info, &value) == CURLE_OK, let value else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }

    private static func versionName(_ version: Int) -> String? {
        switch version {
        case CURL_HTTP_VERSION_1_0: return "1.0"
        case CURL_HTTP_VERSION_1_1: return "1.1"
        case CURL_HTTP_VERSION_2_0: return "2"
        case CURL_HTTP_VERSION_3: return "3"
        default: return nil
        }
    }

    private func error(for result: CURLcode) -> FetchError? {
        if let refusedAddress { return .refusedAddress(refusedAddress) }
        if exceededBodyLimit || result == CURLE_FILESIZE_EXCEEDED { return .tooLarge(maximumBodyBytes) }
        if let exceededBudget { return FetchError(.tooLarge, "body past a budget of \(exceededBudget) bytes shared with other requests") }
        guard result != CURLE_OK else { return nil }
        let message = String(cString: curl_easy_strerror(result))
        let kind: FetchError.Kind
        switch result {
        case CURLE_OPERATION_TIMEDOUT: kind = .timeout
        case CURLE_COULDNT_RESOLVE_HOST: kind = .dns
        case CURLE_COULDNT_CONNECT: kind = .connect
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR:
            kind = .tls
        case CURLE_BAD_CONTENT_ENCODING: kind = .badEncoding
        case CURLE_TOO_MANY_REDIRECTS: kind = .redirectLoop
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL: kind = .invalidURL
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE, CURLE_HTTP2, CURLE_HTTP2_STREAM:
            kind = .connection
        default: kind = .network
        }
        return FetchError(kind, "\(message) (curl error \(result.rawValue))")
    }
}

@available(*, unavailable)
extension Transfer: Sendable {}
