/// The API's wire model (paths, `/v1/search`'s parameters): both sides of a call read the
/// same values without importing a second module.
@_exported import APIModel
