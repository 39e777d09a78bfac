import CPSL
import Foundation
import WebURL

/// Which URLs a crawl may visit.
///
/// By default the seeds' sites: the same scheme, host and port as a seed, where `http` on
/// port 80 and `https` on port 443 count as one site (a site moving to https stays in
/// scope; `https://example.com:8443` is another server and is not). With ``Mode/domain``,
/// every host under the seeds' registrable domains (`shop.example.co.uk` and
/// `www.example.co.uk` share `example.co.uk`, from libpsl's public suffix list), on the
/// default ports or a seed's own; with ``Mode/any``, everywhere. Include patterns
/// (regular expressions over the whole URL) then narrow it, and exclude patterns cut it
/// further.
public struct CrawlScope: Sendable {
    public enum Mode: String, Sendable, CaseIterable {
        case hosts, domain, any
    }

    public let mode: Mode
    private let sites: Set<String>
    private let domains: Set<String>
    private let ports: Set<String>
    private let includes: [NSRegularExpressionBox]
    private let excludes: [NSRegularExpressionBox]

    public init(seeds: [WebURL], mode: Mode = .hosts, include: [String] = [], exclude: [String] = []) throws {
        self.mode = mode
        sites = Set(seeds.map { $0.host + " " + Self.port($0) })
        domains = Set(seeds.map { Self.registrableDomain($0.host) })
        ports = Set(seeds.map(Self.port)).union([Self.defaultPorts])
        includes = try include.map(NSRegularExpressionBox.init)
        excludes = try exclude.map(NSRegularExpressionBox.init)
    }

    public func contains(_ url: WebURL) -> Bool {
        containsSite(url) && matchesPatterns(url)
    }

    /// The part of ``contains(_:)`` decided by the URL's host and port alone (URLs with the
    /// same scheme, host and port get the same answer).
    public func containsSite(_ url: WebURL) -> Bool {
        switch mode {
        case .hosts: sites.contains(url.host + " " + Self.port(url))
        case .domain: ports.contains(Self.port(url)) && domains.contains(Self.registrableDomain(url.host))
        case .any: true
        }
    }

    /// The part of ``contains(_:)`` decided by the include and exclude patterns.
    public func matchesPatterns(_ url: WebURL) -> Bool {
        if !includes.isEmpty, !includes.contains(where: { $0.matches(url.string) }) { return false }
        return !excludes.contains { $0.matches(url.string) }
    }

    private static let defaultPorts = "default"

    /// `default` for http on 80 and https on 443, else `scheme:port`.
    static func port(_ url: WebURL) -> String {
        url.port == nil ? defaultPorts : url.scheme + ":" + String(url.effectivePort)
    }

    /// The registrable domain (public suffix plus one label) of a host, per the public
    /// suffix list; the host itself for IP addresses and names libpsl cannot place.
    public static func registrableDomain(_ host: String) -> String {
        guard let list = PublicSuffixList.shared.context, let domain = psl_registrable_domain(list, host) else { return host }
        return String(cString: domain)
    }
}

/// libpsl's list: the system's latest copy, else the one built in, loaded once.
private final class PublicSuffixList: @unchecked Sendable {
    // @unchecked: a libpsl context is only read after loading, and libpsl documents
    // lookups on a loaded context as safe from several threads.
    let context: OpaquePointer?

    static let shared = PublicSuffixList()

    private init() {
        context = psl_latest(nil) ?? psl_builtin()
    }
}

/// A compiled regular expression that may be shared between threads.
struct NSRegularExpressionBox: @unchecked Sendable {
    // @unchecked: NSRegularExpression is immutable once compiled and documented as safe
    // to use from several threads at once.
    let expression: NSRegularExpression

    init(_ pattern: String) throws {
        do {
            expression = try NSRegularExpression(pattern: pattern)
        } catch {
            throw CrawlScopeError(message: "'\(pattern)' is not a valid regular expression")
        }
    }

    func matches(_ text: String) -> Bool {
        expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }
}

public struct CrawlScopeError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
