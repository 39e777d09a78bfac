import SQLite
import StoreSeams

/// A statement's current row seen through ``StoreRow``, for the shared row mappers.
struct SQLiteRow: StoreRow {
    let statement: SQLiteStatement

    func storeInteger(_ column: Int) -> Int64? { statement.isNull(Int32(column)) ? nil : statement.int64(Int32(column)) }
    func storeReal(_ column: Int) -> Double? { statement.optionalDouble(Int32(column)) }
    func storeText(_ column: Int) -> String? { statement.string(Int32(column)) }
    func storeBytes(_ column: Int) -> [UInt8]? { statement.blob(Int32(column)) }
    func storeFlag(_ column: Int) -> Bool? { storeInteger(column).map { $0 != 0 } }
}
