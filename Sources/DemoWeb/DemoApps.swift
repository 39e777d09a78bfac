import Foundation
import SQLite

/// The bundled app database of the demo (`Apps/HR`): an HR app's Core Data store in the
/// shape of WACoreDataSpotlight's sample — companies, employees (one sub-entity, Manager),
/// projects — with its data model and the mapping file that turns its records into items.
public enum DemoApps {
    public static let hr = Bundle.module.url(forResource: "Apps/HR", withExtension: nil)!

    /// The data model bundle (`HR.xcdatamodeld`) and the mapping file.
    public static var hrModel: URL { hr.appendingPathComponent("HR.xcdatamodeld") }
    public static var hrMapping: URL { hr.appendingPathComponent("hr-mapping.json") }

    /// Writes the HR store (a Core Data SQLite file in WAL mode) at `path`.
    public static func makeHRStore(at path: String) throws {
        let sql = try String(contentsOf: hr.appendingPathComponent("HR.sql"), encoding: .utf8)
        let connection = try SQLiteConnection(path: path)
        try connection.execute(sql)
    }
}
