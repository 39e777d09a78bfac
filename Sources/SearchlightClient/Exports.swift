/// The values a client pushes and reads — items, requests, responses — come with the client:
/// `import SearchlightClient` is all an app writes.
@_exported import ItemModel
@_exported import SearchModel
