/// An item within the item contract. Only ``SearchableItem/validated(_:now:)`` makes one,
/// so a store that takes `ValidItem`s (``ItemBatch``, the crawl's batch) cannot be handed an
/// item that skipped the contract: a source's item is refused or fixed before it is written.
/// Its fields read as the item's (`valid.title`); changing one means validating again.
@dynamicMemberLookup
public struct ValidItem: Sendable, Hashable {
    public let item: SearchableItem

    public subscript<Value>(dynamicMember field: KeyPath<SearchableItem, Value>) -> Value { item[keyPath: field] }

    /// For the contract alone (this module): every other `ValidItem` comes from it.
    init(checked item: SearchableItem) { self.item = item }

    /// The item written by `owner`: an API key's items are its own whatever they say. The
    /// owner is the writer's, not a field the contract checks.
    public func owned(by owner: String?) -> ValidItem {
        var item = item
        item.owner = owner
        return ValidItem(checked: item)
    }
}
