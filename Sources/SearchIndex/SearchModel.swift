/// The engine answers in the search model's values: whoever searches an index reads them
/// without importing a second module.
@_exported import SearchModel
