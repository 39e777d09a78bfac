// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Searchlight",
    products: [
        .executable(name: "searchlight", targets: ["searchlight"]),
    ],
    targets: [
        // C libraries, one system-library target each: module.modulemap + shim.h.
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),

        .target(name: "TextUtilities"),
        .target(name: "JSON", dependencies: ["TextUtilities"]),
        .target(name: "WebURL", dependencies: ["CCurl", "TextUtilities"]),
        .target(name: "Markup", dependencies: ["CLibXML2", "JSON", "WebURL", "TextUtilities"]),
        .target(name: "Fetch", dependencies: ["CCurl", "WebURL"]),
        .target(name: "SQLite", dependencies: ["CSQLite"]),
        .target(name: "SearchIndex", dependencies: ["SQLite", "CSQLite", "Markup", "JSON", "WebURL"]),
        .target(name: "HTTPServer", dependencies: ["CMicroHTTPD"]),

        .executableTarget(name: "searchlight", dependencies: ["Markup", "Fetch", "JSON", "WebURL", "SearchIndex"]),

        // Helpers shared by the test targets: fixture servers, TLS material, running the CLI.
        .target(
            name: "SearchlightTestSupport", dependencies: ["HTTPServer"], path: "Tests/SearchlightTestSupport",
            resources: [.copy("Certificates")]),
        .testTarget(name: "JSONTests", dependencies: ["JSON"]),
        .testTarget(name: "WebURLTests", dependencies: ["WebURL"]),
        .testTarget(
            name: "MarkupTests", dependencies: ["Markup", "JSON", "WebURL"], resources: [.copy("Fixtures")]),
        .testTarget(name: "SearchIndexTests", dependencies: ["SearchIndex", "Markup", "JSON", "WebURL"]),
        .testTarget(name: "FetchTests", dependencies: ["Fetch", "HTTPServer", "SearchlightTestSupport"]),
        .testTarget(name: "SearchlightCLITests", dependencies: ["searchlight", "JSON", "HTTPServer", "SearchlightTestSupport"]),

        // Benchmarks live apart from the tests: `swift run -c release searchlight-bench …`.
        .executableTarget(
            name: "searchlight-bench", dependencies: ["Markup", "JSON", "WebURL", "CLibXML2", "SearchIndex", "SQLite", "CSQLite"],
            path: "Benchmarks/SearchlightBenchmarks"),
    ]
)
