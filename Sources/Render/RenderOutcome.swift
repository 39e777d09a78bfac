/// Why a page could not be rendered (its static HTML is read instead): counted in the run
/// report under these names.
public enum RenderFailure: String, Sendable, Hashable, CaseIterable, Error {
    /// Not loaded and settled within the render timeout (a script that loops, a page that
    /// never finishes loading).
    case timeout = "render-timeout"
    /// The tab crashed (a script that allocates without end) or the browser died twice.
    case failed = "render-failed"
    /// The rendered document is larger than the bound.
    case tooLarge = "render-too-large"
    /// No browser could be started.
    case unavailable = "render-unavailable"
}

/// One render: the document as the browser left it, or why there is none, and what the
/// page asked for on the way.
public struct RenderOutcome: Sendable {
    /// The rendered document, serialised (`<!DOCTYPE html>` and the root element's outer
    /// HTML), UTF-8.
    public var html: [UInt8]?
    public var failure: RenderFailure?
    /// Requests the page made that were fetched.
    public var fetched = 0
    /// Requests that reached each origin (`scheme://host:port`), fetched or failed there: a
    /// crawl counts them in the host's politeness.
    public var requests: [String: Int] = [:]
    /// Requests not fetched, by reason.
    public var refused: [SubresourceRefusal: Int] = [:]
    public var seconds = 0.0

    public init() {}
}
