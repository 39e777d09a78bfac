import Postgres
import StoreSeams

/// A PostgreSQL row seen through ``StoreRow``, for the shared row mappers.
struct PostgresStoreRow: StoreRow {
    let row: PostgresRow

    func storeInteger(_ column: Int) -> Int64? { row.int64(column) }
    func storeReal(_ column: Int) -> Double? { row.double(column) }
    func storeText(_ column: Int) -> String? { row.string(column) }
    func storeBytes(_ column: Int) -> [UInt8]? { row.bytes(column) }
    func storeFlag(_ column: Int) -> Bool? { row.bool(column) }
}
