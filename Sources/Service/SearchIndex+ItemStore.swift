import SearchIndex
import ServiceAPI
import StoreSeams

/// The embedded index is the service's item store on one machine (PostgreSQL's
/// `PostgresItemStore` is the other): declared here, where the service meets both, so the
/// seams stay free of the index's engine.
extension SearchIndex: ItemStore {}
