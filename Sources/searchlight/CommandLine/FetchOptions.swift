import Fetch
import WebURL

/// The options every fetching command shares (`crawl`, `extract`, `validate`), read and
/// checked in one place: `--timeout`, `--resolve`, `--cacert`, `--allow-private`, `--proxy`.
struct FetchOptions {
    static let specs: [OptionSpec] = [
        .value("--timeout", "seconds", help: "Give up on a request after this long (default 30)."),
        .value("--resolve", "host:port:addr", help: "Resolve HOST:PORT to ADDR, as curl's --resolve.", repeatable: true),
        .value("--cacert", "file", help: "Trust the CA certificates in this PEM file."),
        .flag("--allow-private", help: "Allow private, loopback and link-local addresses."),
        .value("--proxy", "url", help: "Fetch through this HTTP proxy (CONNECT tunnels to addresses checked here).\nThe environment's proxy variables are ignored."),
    ]

    var timeout: Double
    var resolve: [String]
    var caCertificates: String?
    var allowPrivate: Bool
    var proxy: String?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        timeout = try arguments.double("--timeout", in: 0.1...3600) ?? 30
        resolve = arguments.values("--resolve")
        for entry in resolve where entry.split(separator: ":").count < 3 {
            throw UsageError("--resolve needs HOST:PORT:ADDRESS, not '\(entry)'")
        }
        caCertificates = arguments.value("--cacert")
        allowPrivate = arguments.flag("--allow-private")
        proxy = arguments.value("--proxy")
        if let proxy, WebURL(proxy) == nil {
            throw UsageError("--proxy needs an http(s) URL such as http://proxy.internal:3128, not '\(proxy)'")
        }
    }

    /// The fetch settings these options describe.
    func apply(to configuration: inout FetchConfiguration) {
        configuration.timeout = timeout
        configuration.resolve = resolve
        configuration.caCertificatesFile = caCertificates
        configuration.addressPolicy = allowPrivate ? .any : .publicOnly
        configuration.proxy = proxy
    }
}
