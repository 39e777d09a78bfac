// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Searchlight",
    // What the client library needs (async URLSession); the server's modules build on Linux.
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .executable(name: "searchlight", targets: ["searchlight"]),
        /// For apps and back ends: push, search and delete in a running `searchlight serve`.
        .library(name: "SearchlightClient", targets: ["SearchlightClient"]),
        /// For apps and back ends: their own records made items with `ingest`'s mapping files.
        .library(name: "SearchlightMapping", targets: ["SearchlightMapping"]),
    ],
    targets: [
        // C libraries, one system-library target each: module.modulemap + shim.h.
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CLibDeflate", pkgConfig: "libdeflate", providers: [.apt(["libdeflate-dev"])]),
        .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),
        .systemLibrary(name: "CPSL", pkgConfig: "libpsl", providers: [.apt(["libpsl-dev"])]),
        .systemLibrary(name: "CIDN2", pkgConfig: "libidn2", providers: [.apt(["libidn2-dev"])]),
        .systemLibrary(name: "CLibCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CStemmer", providers: [.apt(["libstemmer-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),

        .target(name: "TextUtilities"),
        /// One bounded cache (a byte budget, least recently used out first) for every cache.
        .target(name: "BoundedCache"),
        .target(name: "HTTPTypes"),
        .target(name: "JSON", dependencies: ["TextUtilities"]),
        .target(name: "WebURL", dependencies: ["CCurl", "CIDN2", "TextUtilities"]),
        .target(name: "Markup", dependencies: ["CLibXML2", "JSON", "WebURL", "TextUtilities"]),
        .target(name: "Fetch", dependencies: ["HTTPTypes", "CCurl", "TextUtilities", "WebURL"]),
        .target(name: "SQLite", dependencies: ["CSQLite"]),
        .target(name: "Postgres", dependencies: ["CPostgres", "TextUtilities"]),
        /// What an item is: its values and their JSON forms, with no C library below them.
        .target(name: "ItemModel", dependencies: ["JSON", "TextUtilities"]),
        /// The one contract every item passes (``ValidItem``), below every store.
        .target(name: "Items", dependencies: ["ItemModel", "JSON", "WebURL", "TextUtilities"]),
        /// What a search is and answers, as values: request, filters, facets, hits, response and
        /// its JSON, corpus statistics, the result order, relevance feedback's pure part. No C
        /// library below it: the API's two sides and its clients share it without the engine.
        .target(name: "SearchModel", dependencies: ["ItemModel", "JSON", "TextUtilities"]),
        .target(name: "SearchIndex", dependencies: ["BoundedCache", "Items", "SearchModel", "SQLite", "CSQLite", "CStemmer", "CLibDeflate", "CZstd", "JSON", "WebURL", "TextUtilities"]),
        .target(name: "HTTPServer", dependencies: ["HTTPTypes", "CMicroHTTPD", "TextUtilities"]),
        .target(name: "Gzip", dependencies: ["CZlib", "CLibDeflate"]),
        .target(name: "DemoWeb", dependencies: ["HTTPServer", "SQLite", "TextUtilities"], resources: [.copy("Sites"), .copy("Certificates"), .copy("Apps")]),
        .target(name: "WebRules", dependencies: ["CLibXML2", "CPSL", "Gzip", "JSON", "WebURL", "TextUtilities"]),
        /// Pages rendered in headless Chromium over the DevTools protocol, every request the
        /// page makes fetched under the crawl's rules.
        .target(name: "Render", dependencies: ["Fetch", "HTTPTypes", "JSON", "Markup", "TextUtilities", "WebRules", "WebURL"]),
        .target(name: "PageItems", dependencies: ["ItemMapping", "Markup", "Items", "TextUtilities", "WebRules", "WebURL"]),
        .target(
            name: "Crawl",
            dependencies: ["HTTPTypes", "CLibCrypto", "Fetch", "Gzip", "ItemMapping", "JSON", "StoreSeams", "Markup", "PageItems", "Render", "Items", "SearchModel", "TextUtilities", "WebRules",
                           "WebURL"]),
        /// The embedded store: a data folder's SQLite frontier and `index.sqlite` behind the
        /// crawl's store seam, as PostgresStore is the shared one.
        .target(name: "EmbeddedStore", dependencies: ["Crawl", "Items", "JSON", "SearchIndex", "SQLite", "StoreSeams", "WebURL"]),
        /// The seams between the engines and their stores (the crawl's, the service's) and the
        /// value types that cross them: what a second store implements without the engines.
        .target(name: "StoreSeams", dependencies: ["CLibCrypto", "Items", "JSON", "TextUtilities", "WebURL"]),
        /// Mapping files and templates, and the one renderer from a mapped record to an item:
        /// what ingest and the crawl (a page's schema.org object) share.
        /// Mapping files and `{#keyPath#}` templates, and the one renderer of a record's
        /// templates into an item's fields, with no C library below them: what an app links
        /// (the `SearchlightMapping` product) and ingest builds on.
        .target(name: "SearchlightMapping", dependencies: ["ItemModel", "JSON", "TextUtilities"]),
        .target(name: "ItemMapping", dependencies: ["SearchlightMapping", "JSON", "Items", "TextUtilities"]),
        .target(name: "Ingest", dependencies: ["CLibXML2", "ItemMapping", "JSON", "Items", "SearchIndex", "SQLite", "TextUtilities"]),
        .target(name: "PostgresStore", dependencies: ["Postgres", "JSON", "Items", "SearchIndex", "StoreSeams", "WebURL"]),
        .target(name: "Service", dependencies: ["HTTPTypes", "CLibCrypto", "HTTPServer", "JSON", "Items", "SearchIndex", "ServiceAPI", "SQLite", "StoreSeams", "TextUtilities", "WebURL"]),
        /// What the API's two sides share: paths, `/v1/search`'s parameters and the shard
        /// rounds' body both ways, errors, the router credential, engagement tokens, the access log.
        /// The API's wire model with no C library below it: its paths and `/v1/search`'s
        /// parameters as the client writes them; what a Swift client shares with the server.
        .target(name: "APIModel", dependencies: ["ItemModel", "SearchModel", "TextUtilities"]),
        /// The Swift client of a running `searchlight serve`, for apps and back ends: on
        /// Foundation and the model modules alone, no C library (the `SearchlightClient` product).
        .target(name: "SearchlightClient", dependencies: ["APIModel", "ItemModel", "JSON", "SearchModel", "TextUtilities"]),
        .target(name: "ServiceAPI", dependencies: ["APIModel", "HTTPServer", "HTTPTypes", "Items", "JSON", "SearchModel", "StoreSeams", "TextUtilities"]),
        /// The command line's client: the client library over libcurl, waited for.
        .target(name: "ServiceClient", dependencies: ["Fetch", "HTTPTypes", "Items", "SearchModel", "SearchlightClient"]),
        /// `serve --router`: one answer from the shards of a split index (statistics round,
        /// fan-out with fail-over and hedging, merge).
        .target(name: "Router", dependencies: ["Fetch", "HTTPServer", "HTTPTypes", "JSON", "Items", "SearchModel", "ServiceAPI", "StoreSeams"]),

        .executableTarget(
            name: "searchlight",
            dependencies: ["PostgresStore", "HTTPTypes", "Crawl", "EmbeddedStore", "Render", "Ingest", "ItemMapping", "StoreSeams", "TextUtilities", "DemoWeb", "Fetch", "HTTPServer", "JSON", "Markup", "Items", "SearchIndex", "ServiceAPI", "Router", "Service", "ServiceClient", "SearchlightClient", "WebRules", "WebURL"]),

        // Helpers shared by the test targets: fixture servers, TLS material, running the CLI.
        .target(
            name: "SearchlightTestSupport", dependencies: ["HTTPTypes", "HTTPServer", "DemoWeb", "Fetch", "JSON", "PostgresStore", "Items", "SearchIndex", "ServiceAPI", "Service"],
            path: "Tests/SearchlightTestSupport"),
        .testTarget(name: "JSONTests", dependencies: ["JSON"]),
        .testTarget(name: "ItemsTests", dependencies: ["Items", "JSON"]),
        .testTarget(name: "SearchModelTests", dependencies: ["SearchModel"]),
        .testTarget(name: "BoundedCacheTests", dependencies: ["BoundedCache"]),
        .testTarget(name: "SearchlightClientTests", dependencies: ["SearchlightClient", "searchlight-client-example", "HTTPServer", "HTTPTypes", "ItemModel", "SearchModel", "SearchlightTestSupport"],
                    exclude: ["PublicAPI.txt"]),
        .testTarget(name: "RenderTests", dependencies: ["Render", "Fetch", "HTTPTypes", "HTTPServer", "JSON", "Markup", "WebURL", "SearchlightTestSupport"]),
        .testTarget(name: "UtilityTests", dependencies: ["TextUtilities", "HTTPTypes", "Gzip"]),
        .testTarget(name: "IngestTests", dependencies: ["Ingest", "ItemMapping", "SearchlightMapping", "DemoWeb", "JSON", "Items", "SearchIndex", "SQLite"]),
        .testTarget(name: "SQLiteTests", dependencies: ["SQLite", "CSQLite"]),
        .testTarget(
            name: "PostgresStoreTests",
            dependencies: ["Postgres", "PostgresStore", "Crawl", "EmbeddedStore", "DemoWeb", "Fetch", "HTTPTypes", "HTTPServer", "JSON", "Items", "SearchIndex", "ServiceAPI", "Service",
                           "SQLite", "StoreSeams", "WebURL", "searchlight", "SearchlightTestSupport"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "HTTPTypes", "SearchlightTestSupport"]),
        .testTarget(name: "WebURLTests", dependencies: ["WebURL", "JSON", "SearchlightTestSupport"]),
        .testTarget(
            name: "MarkupTests", dependencies: ["Markup", "JSON", "WebURL", "SearchlightTestSupport"], resources: [.copy("Fixtures")]),
        .testTarget(name: "SearchIndexTests", dependencies: ["Items", "SearchIndex", "JSON", "SQLite", "TextUtilities", "WebURL"]),
        .testTarget(name: "PageItemsTests", dependencies: ["PageItems", "Markup", "Items", "SearchIndex", "TextUtilities", "WebRules", "WebURL"]),
        .testTarget(name: "WebRulesTests", dependencies: ["WebRules", "WebURL", "Gzip", "JSON", "SearchlightTestSupport"]),
        .testTarget(
            name: "CrawlTests",
            dependencies: ["HTTPTypes", "searchlight", "Crawl", "EmbeddedStore", "StoreSeams", "Fetch", "Items", "PageItems", "SearchIndex", "WebRules", "WebURL", "JSON", "HTTPServer", "Gzip", "SearchlightTestSupport"]),
        .testTarget(
            name: "ServiceTests",
            dependencies: ["ServiceAPI", "Router", "StoreSeams", "HTTPTypes", "searchlight", "Service", "Fetch", "HTTPServer", "JSON", "Items", "SearchIndex", "SearchModel",
                           "PostgresStore", "SearchlightTestSupport"]),
        .testTarget(name: "FetchTests", dependencies: ["HTTPTypes", "searchlight", "Fetch", "HTTPServer", "SearchlightTestSupport"]),
        .testTarget(
            name: "SearchlightCLITests",
            dependencies: ["HTTPTypes", "searchlight", "DemoWeb", "Fetch", "JSON", "HTTPServer", "Items", "SearchIndex", "SQLite", "SearchlightTestSupport"]),

        // Fuzz targets for every parser of untrusted input: `scripts/fuzz.sh` (libFuzzer).
        .executableTarget(
            name: "searchlight-fuzz", dependencies: ["HTTPServer", "HTTPTypes", "JSON", "Markup", "PageItems", "ServiceAPI", "Render", "Router", "Items", "SearchIndex", "Service", "TextUtilities", "WebRules",
                                                      "WebURL"],
            path: "Fuzz/SearchlightFuzz"),

        // What the README's "Use from Swift" shows, built with the tests and run against a
        // service by them (SearchlightClientTests).
        .executableTarget(name: "searchlight-client-example", dependencies: ["SearchlightClient"], path: "Examples/ClientExample"),

        // Benchmarks live apart from the tests: `swift run -c release searchlight-bench …`.
        .executableTarget(
            name: "searchlight-bench",
            dependencies: ["Markup", "JSON", "WebURL", "CLibXML2", "Ingest", "ItemMapping", "Items", "SearchIndex", "SQLite", "CSQLite", "Crawl", "EmbeddedStore", "PostgresStore",
                           "Fetch", "HTTPServer", "ServiceAPI", "Router", "Service", "StoreSeams", "TextUtilities"],
            path: "Benchmarks/SearchlightBenchmarks"),
    ]
)
