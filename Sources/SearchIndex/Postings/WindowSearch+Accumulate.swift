import Items

/// The window search's per-clause work: bounds from the blocks, postings scored into the
/// window's arrays, a document's clause looked up, the arrays cleared.
extension WindowSearch {
    /// The most clause `k` can add to a document from `lower` up to `upper`, summed in the
    /// order its score is.
    @inline(__always)
    func clauseBound(_ k: Int, _ lower: Int32, _ upper: Int32) -> Double {
        var total = 0.0
        var any = false
        for u in clauses[k].units {
            let unit = units[u]
            var saturation = Float.infinity
            for c in unit.firstCursor..<(unit.firstCursor + unit.cursorCount) {
                saturation = min(saturation, cursors[c].bound(from: lower, below: upper))
            }
            guard saturation > 0, saturation.isFinite else { continue }
            total += unit.weight * Double(saturation) * boundFactor
            any = true
        }
        return any ? total + clauses[k].bonus : 0
    }

    /// Sums clause `k`'s units' scores from `lower` up to `upper` into its array (its bonus is
    /// added when a document's score is read, ``value(_:_:)``), marking the documents it
    /// matched. Under a filter, only the documents it lets through are scored and marked: the
    /// others are masked out of the window's candidates anyway, and a selective filter's
    /// search would otherwise score every posting of a frequent word to keep a few.
    func accumulate(_ k: Int, _ lower: Int32, _ upper: Int32) {
        let values = buffers.values + k * window
        let matched = buffers.matched + k * (window / 64)
        let lengths = self.lengths
        let norm = self.norm
        for u in clauses[k].units {
            let unit = units[u]
            let weight = unit.weight
            if unit.cursorCount == 1 {
                if let allowed {
                    while let run = cursors[unit.firstCursor].run(below: upper) {
                        for i in 0..<run.count {
                            let ordinal = Int(run.ordinals[i])
                            guard Self.contains(allowed, ordinal) else { continue }
                            let offset = ordinal - Int(lower)
                            values[offset] += weight * norm.saturation(Double(run.frequencies[i]), length: Double(lengths[ordinal]))
                            matched[offset >> 6] |= 1 << UInt64(offset & 63)
                        }
                    }
                    continue
                }
                while let run = cursors[unit.firstCursor].run(below: upper) {
                    for i in 0..<run.count {
                        let ordinal = Int(run.ordinals[i])
                        let offset = ordinal - Int(lower)
                        values[offset] += weight * norm.saturation(Double(run.frequencies[i]), length: Double(lengths[ordinal]))
                        matched[offset >> 6] |= 1 << UInt64(offset & 63)
                    }
                }
                continue
            }
            // A phrase: its first token's postings in the window, kept where every other token
            // has a posting too, with the least frequency.
            let ordinals = buffers.phraseOrdinals
            let frequencies = buffers.phraseFrequencies
            var kept = 0
            while let run = cursors[unit.firstCursor].run(below: upper) {
                for i in 0..<run.count {
                    ordinals[kept] = run.ordinals[i]
                    frequencies[kept] = run.frequencies[i]
                    kept += 1
                }
            }
            for c in (unit.firstCursor + 1)..<(unit.firstCursor + unit.cursorCount) {
                var read = 0
                var written = 0
                while read < kept, let run = cursors[c].run(below: upper) {
                    var i = 0
                    while read < kept, i < run.count {
                        let a = ordinals[read], b = run.ordinals[i]
                        if a < b {
                            read += 1
                        } else if b < a {
                            i += 1
                        } else {
                            ordinals[written] = a
                            frequencies[written] = min(frequencies[read], run.frequencies[i])
                            written += 1
                            read += 1
                            i += 1
                        }
                    }
                }
                kept = written
            }
            for i in 0..<kept {
                let ordinal = Int(ordinals[i])
                let offset = ordinal - Int(lower)
                values[offset] += weight * norm.saturation(Double(frequencies[i]), length: Double(lengths[ordinal]))
                matched[offset >> 6] |= 1 << UInt64(offset & 63)
            }
        }
    }

    /// Clause `k`'s score for the document at `ordinal`, its postings looked up.
    func probe(_ k: Int, _ ordinal: Int32) -> Double {
        var score = 0.0
        var any = false
        let length = Double(lengths[Int(ordinal)])
        for u in clauses[k].units {
            let unit = units[u]
            var lowest = UInt32.max
            for c in unit.firstCursor..<(unit.firstCursor + unit.cursorCount) {
                cursors[c].advance(to: ordinal)
                guard cursors[c].doc == ordinal else {
                    lowest = 0
                    break
                }
                lowest = min(lowest, cursors[c].frequency)
            }
            guard lowest > 0 else { continue }
            score += unit.weight * norm.saturation(Double(lowest), length: length)
            any = true
        }
        return any ? score + clauses[k].bonus : 0
    }

    /// Zeroes what clause `k` wrote in its array: the whole array at once when it matched
    /// many documents.
    func clear(_ k: Int) {
        let values = buffers.values + k * window
        let matched = buffers.matched + k * (window / 64)
        var occupied = 0
        for w in 0..<(window / 64) where matched[w] != 0 { occupied += 1 }
        if occupied == window / 64 {
            values.update(repeating: 0, count: window)
            matched.update(repeating: 0, count: window / 64)
            return
        }
        for w in 0..<(window / 64) where matched[w] != 0 {
            var bits = matched[w]
            while bits != 0 {
                values[w * 64 + bits.trailingZeroBitCount] = 0
                bits &= bits - 1
            }
            matched[w] = 0
        }
    }
}
