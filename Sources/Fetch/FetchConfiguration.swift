import HTTPTypes
/// How an ``HTTPClient`` fetches: identity, limits, TLS and name resolution.
public struct FetchConfiguration: Sendable {
    /// `Searchlightbot/<version> (+<contact URL>)`.
    public var userAgent: String
    public var connectTimeout: Double = 10
    /// Total time for one request, in seconds (`--timeout`).
    public var timeout: Double = 30
    /// Abort when fewer than `lowSpeedLimit` bytes/s arrive for `lowSpeedTime` seconds.
    public var lowSpeedLimit = 1024
    public var lowSpeedTime = 15
    /// Largest body accepted, counted after decompression too (a gzip bomb is stopped here).
    public var maximumBodyBytes = 10 * 1024 * 1024
    /// Connections open at once in total and to one host.
    public var maximumConnections = 64
    public var maximumConnectionsPerHost = 2
    public var addressPolicy = AddressPolicy.publicOnly
    /// A PEM file of CA certificates to trust (`--cacert`).
    public var caCertificatesFile: String?
    /// `HOST:PORT:ADDRESS` entries, as curl's `--resolve`.
    public var resolve: [String] = []
    /// An HTTP proxy URL (`--proxy`). Without one no proxy is used, whatever the
    /// environment's `http_proxy` says: the address check must see the real target.
    public var proxy: String?
    /// The local address connections start from (curl's `--interface`), on a machine with
    /// several; nil lets the system choose.
    public var localAddress: String?

    public init(userAgent: String) {
        self.userAgent = userAgent
    }
}

/// One HTTP request: a GET unless told otherwise (the crawler only GETs; API clients
/// and tests also POST and DELETE).
public struct FetchRequest: Sendable {
    public var url: String
    public var method = "GET"
    /// A request body, sent as is (set its Content-Type in ``headers``).
    public var body: [UInt8]?
    /// Extra request headers (`If-None-Match`, `If-Modified-Since`…).
    public var headers: [HTTPField] = []
    /// Overrides ``FetchConfiguration/timeout``.
    public var timeout: Double?
    /// Overrides ``FetchConfiguration/maximumBodyBytes``.
    public var maximumBodyBytes: Int?
    /// Keep the request's header block as sent (``FetchResponse/requestHeaderBlock``, for a
    /// WARC request record): libcurl shows it only through its debug callback, which costs
    /// a call per chunk received, so only requests that need it ask for it.
    public var recordsRequestHeaders = false
    /// Budgets the body's bytes are taken from as they arrive (``ByteBudget``), besides
    /// ``maximumBodyBytes``; the response's body holds exactly the bytes taken.
    public var budgets: [ByteBudget] = []
    /// Through a proxy: the checked address the proxy is to connect to (``ProxyTarget``).
    var connectTo: String?

    public init(url: String, headers: [HTTPField] = []) {
        self.url = url
        self.headers = headers
    }
}
