/// When the crawl renders a page in a browser (`--render`).
public enum RenderMode: String, Sendable, Hashable, CaseIterable {
    /// Only pages whose static HTML is a client-rendered shell (``RenderRule``).
    case auto
    case never
    /// Every HTML page that may be indexed.
    case always
}

/// The render mode for each host: a default, and modes for host patterns (`--render
/// '*.spa.example=always'`): an exact host, or `*.` and a domain for it and its
/// subdomains. The first pattern that matches wins.
public struct RenderPolicy: Sendable, Hashable {
    public var mode: RenderMode
    public var hosts: [Host]

    public struct Host: Sendable, Hashable {
        public var pattern: String
        public var mode: RenderMode
    }

    public init(mode: RenderMode = .auto, hosts: [Host] = []) {
        self.mode = mode
        self.hosts = hosts
    }

    /// Reads `--render` values: `auto|never|always` sets the default, `PATTERN=MODE` a host's.
    public init(parsing values: [String]) throws(RenderPolicyError) {
        self.init()
        for value in values {
            let parts = value.split(separator: "=", maxSplits: 1).map(String.init)
            guard let mode = RenderMode(rawValue: parts.last?.lowercased() ?? "") else { throw RenderPolicyError(value) }
            if parts.count == 1 {
                self.mode = mode
            } else {
                let pattern = parts[0].lowercased()
                let domain = pattern.hasPrefix("*.") ? String(pattern.dropFirst(2)) : pattern
                guard !domain.isEmpty, !domain.contains("*"), !domain.contains("/") else { throw RenderPolicyError(value) }
                hosts.append(Host(pattern: pattern, mode: mode))
            }
        }
    }

    public func mode(for host: String) -> RenderMode {
        let host = host.lowercased()
        for entry in hosts {
            if entry.pattern.hasPrefix("*.") {
                let domain = entry.pattern.dropFirst(2)
                if host == domain || host.hasSuffix("." + domain) { return entry.mode }
            } else if host == entry.pattern {
                return entry.mode
            }
        }
        return mode
    }

    /// Whether any host may be rendered.
    public var rendersAny: Bool { mode != .never || hosts.contains { $0.mode != .never } }
}

public struct RenderPolicyError: Error, Sendable, CustomStringConvertible {
    public let value: String
    init(_ value: String) { self.value = value }
    public var description: String { "--render '\(value)' is not auto, never, always or HOST-PATTERN=MODE" }
}
