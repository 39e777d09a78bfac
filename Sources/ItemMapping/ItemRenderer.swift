import FoundationEssentials
import Items

/// The one place a mapped record becomes a ``ValidItem``: its draft (``MappedItem``, the
/// templates rendered) held to the item contract (``SearchableItem/validated(_:now:)`` with the `rendered` policy: text
/// cleaned and cut, any other broken rule skips the record), so an app's database can put
/// nothing in the index that a push could not. Pure: `value` supplies the record.
public enum ItemRenderer {
    public enum Outcome: Sendable {
        case item(ValidItem)
        case skipped(IngestSkip, String?)
    }

    /// How a key path's several values are joined in text (``MappedItem/listSeparator``).
    public static let listSeparator = MappedItem.listSeparator

    public static func render(
        _ mapping: Mapping, record: RecordReference?, now: Date, lifetime: TimeInterval? = nil, value: (RecordKeyPath) throws -> String?
    ) throws -> Outcome {
        do {
            let item = try MappedItem.draft(mapping, record: record, now: now, value: value)
            var policy = SearchableItem.Policy.rendered
            policy.lifetime = lifetime
            return .item(try item.validated(policy, now: now))
        } catch let invalid as MappedItem.Invalid {
            return .skipped(.invalidItem, invalid.detail)
        } catch let problem as SearchableItem.Problem {
            guard problem.kind == .empty else { return .skipped(.invalidItem, problem.description) }
            return .skipped(problem.field == "title" ? .emptyTitle : .emptyIdentifier, nil)
        }
    }
}
