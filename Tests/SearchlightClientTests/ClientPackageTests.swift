import Foundation
import SearchlightTestSupport
import Testing

/// What another package gets with the `SearchlightClient` product: no C library and no
/// server module in its closure, and the README's example running against a service.
@Suite struct ClientPackageTests {
    /// Each target of the manifest and the targets it depends on, read from Package.swift.
    static func targets() throws -> (dependencies: [String: [String]], systemLibraries: Set<String>) {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        var dependencies: [String: [String]] = [:]
        var systemLibraries = Set<String>()
        let declaration = try Regex(#"\.(target|executableTarget|testTarget|systemLibrary)\(\s*name:\s*"([^"]+)"(?:,\s*dependencies:\s*\[([^\]]*)\])?"#)
        for match in manifest.matches(of: declaration) {
            let kind = String(match.output[1].substring ?? "")
            let name = String(match.output[2].substring ?? "")
            let list = match.output[3].substring.map(String.init) ?? ""
            dependencies[name] = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
                .filter { !$0.isEmpty }
            if kind == "systemLibrary" { systemLibraries.insert(name) }
        }
        return (dependencies, systemLibraries)
    }

    @Test(arguments: [("SearchlightClient", ["SearchlightClient", "APIModel", "ItemModel", "SearchModel", "JSON", "TextUtilities"]),
                      ("SearchlightMapping", ["SearchlightMapping", "ItemModel", "JSON", "TextUtilities"])])
    func theLibrariesLinkNoCLibraryAndNoServerModule(_ library: String, _ expected: [String]) throws {
        let (dependencies, systemLibraries) = try Self.targets()
        #expect(systemLibraries.isSuperset(of: ["CSQLite", "CLibXML2", "CCurl", "CIDN2", "CMicroHTTPD", "CLibDeflate", "CStemmer"]), "\(systemLibraries)")
        var closure = Set<String>()
        var next = [library]
        while let target = next.popLast() {
            guard closure.insert(target).inserted else { continue }
            next += try #require(dependencies[target], "\(target) is declared in Package.swift")
        }
        #expect(closure.isDisjoint(with: systemLibraries), "C libraries in \(library)'s closure: \(closure.intersection(systemLibraries))")
        for server in ["SearchIndex", "SQLite", "Fetch", "WebURL", "Items", "HTTPServer", "ServiceAPI", "Service", "Crawl"] {
            #expect(!closure.contains(server), "\(server) in \(library)'s closure")
        }
        #expect(closure == Set(expected), "\(closure.sorted())")
    }

    /// The README's example, built with the tests, run as a user runs it.
    @Test func theExamplePushesFindsAndDeletesAgainstAService() throws {
        let service = try RunningService()
        defer { service.stop() }
        let process = Process()
        process.executableURL = CommandRunner.productsDirectory.appendingPathComponent("searchlight-client-example")
        process.environment = ["SEARCHLIGHT_SERVER": service.baseURL, "SEARCHLIGHT_KEY": try service.key(owner: "tartine", domain: "tartine.example")]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(printed)")
        #expect(printed.contains("Lemon tart: a tap opens https://tartine.example/recipes/lemon-tart"), "\(printed)")
        #expect(printed.contains("pushed 1, found 1, deleted 1"), "\(printed)")
        #expect(service.ids("lemon").isEmpty)
    }
}
