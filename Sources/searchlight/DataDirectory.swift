import Foundation

/// The data folder (`--data`, default `./crawl-data`) and the files in it.
struct DataDirectory {
    static let defaultPath = "crawl-data"
    static let option = OptionSpec.value("--data", "dir", help: "The data folder (default: ./crawl-data).")

    let path: String

    init(_ arguments: ParsedArguments) {
        path = arguments.value(Self.option) ?? Self.defaultPath
    }

    init(path: String) {
        self.path = path
    }

    var indexPath: String { (path as NSString).appendingPathComponent("index.sqlite") }
    /// What `ingest` remembers of each source between runs (``IngestState``).
    var ingestPath: String { (path as NSString).appendingPathComponent("ingest.sqlite") }
    /// Keys and activity reports: the service's own file.
    var servicePath: String { (path as NSString).appendingPathComponent("service.sqlite") }

    /// Creates the folder when it is missing.
    func create() throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw CommandFailure("cannot create the data folder \(path): \(error.localizedDescription)")
        }
    }
}
