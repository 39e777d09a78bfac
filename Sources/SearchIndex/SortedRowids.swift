import Items
extension Array where Element == Int64 {
    /// The first index in `from..<to` of this ascending array whose value is at least
    /// `value` (`to` when none): a binary search, as segments' rowids and filters' rows are kept.
    func firstIndex(atLeast value: Int64, from: Int = 0, to: Int? = nil) -> Int {
        var (low, high) = (from, to ?? count)
        while low < high {
            let middle = (low + high) / 2
            if self[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
