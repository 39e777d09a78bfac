import Fetch

/// An HTTP client for talking to a `searchlight serve` the user named (`search --server`,
/// `ingest --server`): any address is allowed — a service on this machine or the private
/// network is the usual case — with the user's CA file for https.
enum ServerClient {
    static func make(caCertificates: String?, timeout: Double) -> HTTPClient {
        var configuration = FetchConfiguration(userAgent: UserAgent.string)
        configuration.addressPolicy = .any
        configuration.caCertificatesFile = caCertificates
        configuration.timeout = timeout
        return HTTPClient(configuration: configuration)
    }

    /// The server URL without a trailing slash, ready for `/v1/…`.
    static func base(_ server: String) -> String {
        server.hasSuffix("/") ? String(server.dropLast()) : server
    }
}
