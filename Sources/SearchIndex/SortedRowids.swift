import Items
extension RandomAccessCollection where Element == Int64, Index == Int {
    /// The first index in `from..<to` of this ascending collection whose value is at least
    /// `value` (`to` when none): a binary search, as segments' rowids and filters' rows are kept.
    func firstIndex(atLeast value: Int64, from: Int? = nil, to: Int? = nil) -> Int {
        var (low, high) = (from ?? startIndex, to ?? endIndex)
        while low < high {
            let middle = (low + high) / 2
            if self[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
