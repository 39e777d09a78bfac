import Crawl

extension CrawlEngine {
    /// A run on the data folder: the embedded store, libcurl, WARC files in `warc/`.
    public static func local(configuration: CrawlConfiguration, runID: String) throws -> CrawlEngine {
        try with(store: try LocalCrawlStore(dataDirectory: configuration.dataDirectory), configuration: configuration, runID: runID)
    }
}
