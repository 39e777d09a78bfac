/// The item values live in ``ItemModel`` (no C library below them, for clients); this module
/// adds the contract every stored item passes. Code that imports `Items` sees both.
@_exported import ItemModel
