import Items
/// Spelling candidates from a segment's sorted dictionary, found as a Levenshtein walk
/// over it: terms are read in order, each one's distance rows (optimal string alignment,
/// a transposition counting as one edit) extend those of the common prefix with the term
/// before, and as soon as a prefix's row has no entry within the allowed edits, every
/// term under that prefix is skipped with one binary search. The work is bounded by a
/// budget of terms read, not by the size of the vocabulary.
extension SegmentReader {
    /// Calls `visit` with each term sharing `target`'s first character whose distance to
    /// it is at most `edits`, with its document count; reads at most `budget` terms (and
    /// takes them off it).
    func fuzzyTerms(near target: [Unicode.Scalar], edits: Int, budget: inout Int, _ visit: (UnsafeRawBufferPointer, Int) -> Void) {
        guard let first = target.first, edits > 0, budget > 0 else { return }
        let n = target.count
        let width = n + 1
        // Rows for depths 0…n+edits+1: deeper prefixes are always pruned first.
        let depthLimit = n + edits + 1
        var rows = [Int](repeating: 0, count: (depthLimit + 1) * width)
        for j in 0...n { rows[j] = j }
        var prefix: [Unicode.Scalar] = []
        var candidate: [Unicode.Scalar] = []
        /// Where each of the candidate's scalars ends in its bytes.
        var ends: [Int] = []
        var skip: [UInt8] = []
        let start = Array(String(first).utf8)
        dictionary.withUnsafeBytes { bytes in
            var index = lowerBound(start, bytes, from: 0)
            let end = Self.successor(of: start).map { lowerBound($0, bytes, from: index) } ?? termCount
            while index < end, budget > 0 {
                budget -= 1
                let term = self.term(at: index)
                Self.decode(term, into: &candidate, ends: &ends)
                var common = 0
                while common < prefix.count, common < candidate.count, prefix[common] == candidate[common] { common += 1 }
                prefix.removeSubrange(common...)
                var prunedAt: Int?
                for depth in common..<min(candidate.count, depthLimit) {
                    let d = depth + 1
                    let scalar = candidate[depth]
                    let row = d * width
                    let previous = row - width
                    rows[row] = d
                    var minimum = d
                    for j in 1...n {
                        let cost = scalar == target[j - 1] ? 0 : 1
                        var value = min(rows[previous + j] + 1, rows[row + j - 1] + 1, rows[previous + j - 1] + cost)
                        if d > 1, j > 1, scalar == target[j - 2], candidate[depth - 1] == target[j - 1] {
                            value = min(value, rows[previous - width + j - 2] + 1)
                        }
                        rows[row + j] = value
                        minimum = min(minimum, value)
                    }
                    prefix.append(scalar)
                    if minimum > edits {
                        prunedAt = d
                        break
                    }
                }
                if candidate.count >= depthLimit, prunedAt == nil { prunedAt = depthLimit }
                if let depth = prunedAt {
                    // Nothing under this prefix can come within the edits: skip past it.
                    skip.removeAll(keepingCapacity: true)
                    skip.append(contentsOf: UnsafeRawBufferPointer(rebasing: term[..<ends[depth - 1]]))
                    guard Self.advance(&skip) else { return }
                    index = lowerBound(skip, bytes, from: index + 1, below: end)
                    continue
                }
                if rows[candidate.count * width + n] <= edits { visit(term, documents(at: index, bytes)) }
                index += 1
            }
        }
    }

    /// The first index from `low` on (below `high`) whose term is not below `key`.
    private func lowerBound(_ key: [UInt8], _ bytes: UnsafeRawBufferPointer, from low: Int, below high: Int? = nil) -> Int {
        var low = low
        var high = high ?? termCount
        key.withUnsafeBytes { key in
            while low < high {
                let middle = (low + high) / 2
                if compareBytes(term(at: middle), key) < 0 { low = middle + 1 } else { high = middle }
            }
        }
        return low
    }

    private func documents(at index: Int, _ bytes: UnsafeRawBufferPointer) -> Int {
        let text = term(at: index)
        var reader = ByteReader(bytes, offset: entryOffset(index) + 2 + text.count)
        return Int(reader.u32())
    }

    /// The smallest byte string after every string that starts with `prefix`; nil when
    /// there is none (all 0xFF).
    static func successor(of prefix: [UInt8]) -> [UInt8]? {
        var bytes = prefix
        return advance(&bytes) ? bytes : nil
    }

    /// Turns `bytes` into ``successor(of:)`` in place; false when there is none.
    private static func advance(_ bytes: inout [UInt8]) -> Bool {
        while let last = bytes.last, last == 0xFF { bytes.removeLast() }
        guard !bytes.isEmpty else { return false }
        bytes[bytes.count - 1] += 1
        return true
    }

    /// The scalars of a term the index wrote (valid UTF-8), and where each ends.
    private static func decode(_ term: UnsafeRawBufferPointer, into scalars: inout [Unicode.Scalar], ends: inout [Int]) {
        scalars.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
        var offset = 0
        while offset < term.count {
            let lead = term[offset]
            let width = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
            guard offset + width <= term.count else { return }
            var value = UInt32(width == 1 ? lead : width == 2 ? lead & 0x1F : width == 3 ? lead & 0x0F : lead & 0x07)
            for next in 1..<max(1, width) where width > 1 { value = value << 6 | UInt32(term[offset + next] & 0x3F) }
            scalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")
            offset += width
            ends.append(offset)
        }
    }
}
