/// Mapping files, templates and drafts come with the contract's renderer: whoever renders
/// an item for the index reads them without importing a second module.
@_exported import SearchlightMapping
