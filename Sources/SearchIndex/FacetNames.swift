import SearchModel
import Synchronization

/// Each facet's values by number, numbered as first met: every segment's values
/// (``SegmentFacets``) of one index file are numbers of this one list, so that counts from
/// many segments add up by number and a value's name is kept once. Numbers only grow; `0`
/// stands for none. At most ``maximumValues`` a facet: past them a value counts as none.
final class FacetNames: Sendable {
    /// At most this many values a facet keeps names for.
    static let maximumValues = 1 << 20

    private struct Registry {
        var names: [String] = [""]
        var numbers: [String: UInt32] = [:]
    }

    private let registries = Mutex<[Facet: Registry]>([:])

    /// The numbers of `names` (values of `facet`), new ones numbered now; `0` for those past
    /// ``maximumValues``.
    func numbers(_ facet: Facet, of names: [String]) -> [UInt32] {
        registries.withLock { registries in
            var registry = registries.removeValue(forKey: facet) ?? Registry()
            defer { registries[facet] = registry }
            return names.map { name in
                if let known = registry.numbers[name] { return known }
                guard registry.names.count < Self.maximumValues else { return 0 }
                let number = UInt32(registry.names.count)
                registry.names.append(name)
                registry.numbers[name] = number
                return number
            }
        }
    }

    /// The values of `facet` by number, as numbered so far.
    func names(_ facet: Facet) -> [String] {
        registries.withLock { $0[facet]?.names ?? [""] }
    }
}
