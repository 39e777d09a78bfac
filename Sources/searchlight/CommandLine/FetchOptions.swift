import Fetch
import WebURL

/// The options every fetching command shares (`crawl`, `extract`, `validate`), read and
/// checked in one place: `--timeout`, `--resolve`, `--cacert`, `--allow-private`, `--proxy`.
struct FetchOptions {
    static let timeoutOption = Setting.number("--timeout", "seconds", help: "Give up on a request after this long", in: 0.1...3600,
                                              default: FetchConfiguration(userAgent: "").timeout)
    static let resolveOption = OptionSpec.value("--resolve", "host:port:addr", help: "Resolve HOST:PORT to ADDR, as curl's --resolve.", repeatable: true)
    static let cacertOption = OptionSpec.value("--cacert", "file", help: "Trust the CA certificates in this PEM file.")
    static let allowPrivateOption = OptionSpec.flag("--allow-private", help: "Allow private, loopback and link-local addresses.")
    static let proxyOption = OptionSpec.value(
        "--proxy", "url", help: "Fetch through this HTTP proxy (CONNECT tunnels to addresses checked here).\nThe environment's proxy variables are ignored.")
    static let specs = [timeoutOption.spec, resolveOption, cacertOption, allowPrivateOption, proxyOption]

    var timeout: Double
    var resolve: [String]
    var caCertificates: String?
    var allowPrivate: Bool
    var proxy: String?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        timeout = try arguments.value(Self.timeoutOption)
        resolve = arguments.values(Self.resolveOption)
        for entry in resolve where entry.split(separator: ":").count < 3 {
            throw UsageError("--resolve needs HOST:PORT:ADDRESS, not '\(entry)'")
        }
        caCertificates = arguments.value(Self.cacertOption)
        allowPrivate = arguments.flag(Self.allowPrivateOption)
        proxy = arguments.value(Self.proxyOption)
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
