import Crawl
import Foundation
import StoreSeams

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

    /// Its files, as ``DataFolder`` names them.
    var folder: DataFolder { DataFolder(path) }
    var indexPath: String { folder.indexPath }
    var ingestPath: String { folder.ingestPath }
    var servicePath: String { folder.servicePath }

    /// Creates the folder when it is missing.
    func create() throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw CommandFailure("cannot create the data folder \(path): \(error.localizedDescription)")
        }
    }
}
