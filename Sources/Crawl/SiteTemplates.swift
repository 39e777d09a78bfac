import StoreSeams
import Synchronization

/// Text a site repeats on its pages — a menu, a sidebar, a footer, a "free delivery" strip
/// that the main-content decision let through — learnt from the pages a crawl has read, so
/// that it is left out of the next pages' bodies (``MarkupExtractor``'s ``MainText`` blocks,
/// by fingerprint).
///
/// A block is template text of its origin once ``pagesToRepeat`` other pages of it held the
/// same block. Bounded: at most ``blocksPerOrigin`` fingerprints per origin (the least seen
/// go first) and ``origins`` origins (the least recently seen go first). Shared by the
/// extraction threads.
final class SiteTemplates: Sendable {
    static let pagesToRepeat = 3
    static let blocksPerOrigin = 8192
    static let origins = 4096

    private struct Origin {
        var counts: [UInt64: Int32] = [:]
        var used: UInt64 = 0
    }

    private struct State {
        var origins: [String: Origin] = [:]
        var clock: UInt64 = 0
    }

    private let state = Mutex(State())

    init() {}

    /// Records a page's content blocks for its origin; returns those already repeated on
    /// enough other pages, which the page's body leaves out.
    func observe(origin: String, blocks: [UInt64]) -> Set<UInt64> {
        guard !blocks.isEmpty else { return [] }
        return state.withLock { state in
            state.clock += 1
            if state.origins[origin] == nil, state.origins.count >= Self.origins,
                let stale = state.origins.min(by: { $0.value.used < $1.value.used })?.key
            {
                state.origins[stale] = nil
            }
            // Changed in place: a copy taken out of the dictionary would copy its counts.
            return Self.record(Set(blocks), in: &state.origins[origin, default: Origin()], clock: state.clock)
        }
    }

    private static func record(_ blocks: Set<UInt64>, in site: inout Origin, clock: UInt64) -> Set<UInt64> {
        site.used = clock
        var repeated = Set<UInt64>()
        for hash in blocks {
            let seen = site.counts[hash] ?? 0
            if Int(seen) >= pagesToRepeat { repeated.insert(hash) }
            site.counts[hash] = seen + 1
        }
        if site.counts.count > blocksPerOrigin {
            // Keep the blocks seen most: template text is seen on every page.
            let kept = site.counts.sorted { $0.value > $1.value }.prefix(blocksPerOrigin / 2)
            site.counts = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
        }
        return repeated
    }
}
