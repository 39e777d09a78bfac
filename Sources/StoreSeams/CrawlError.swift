/// A failure that stops a crawl (not a page: pages that fail are counted, never fatal).
public struct CrawlError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
