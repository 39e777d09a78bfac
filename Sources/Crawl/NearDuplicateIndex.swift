/// One host's indexed pages by SimHash, answering "is there another page within 3 bits of
/// this one?" without comparing against every page.
///
/// Manku, Jain and Das Sarma's table scheme for k = 3: split the 64 bits into 4 blocks of
/// 16; two fingerprints at most 3 bits apart differ in at most 3 blocks, so they agree
/// exactly on at least one. Each of 4 tables maps one block's value to the pages having
/// it, and a query checks the Hamming distance only of the pages sharing one of its blocks
/// (on average `pages / 65,536` per table). Memory is ~130 bytes per page; at most
/// ``maximumPages`` pages per host are kept (≈ 13 MB), later pages are still checked
/// against those.
struct NearDuplicateIndex {
    static let maximumPages = 100_000

    private var prints: [UInt64] = []
    /// The page's URL hash, so that a page revisited is not its own near-duplicate.
    private var urls: [UInt64] = []
    /// (table << 16 | block value) → the most recent page in that bucket.
    private var heads: [UInt32: Int32] = [:]
    /// For each page and table, the previous page in the same bucket (−1 ends the chain).
    private var next: [Int32] = []

    var count: Int { prints.count }

    /// Whether another URL's page is within ``TextFingerprint/nearDuplicateDistance`` bits.
    func hasNearDuplicate(of simhash: UInt64, url: UInt64) -> Bool {
        for table in 0..<4 {
            var page = heads[Self.key(simhash, table)] ?? -1
            while page >= 0 {
                let index = Int(page)
                if urls[index] != url, TextFingerprint.distance(prints[index], simhash) <= TextFingerprint.nearDuplicateDistance { return true }
                page = next[index * 4 + table]
            }
        }
        return false
    }

    /// Keeps a page (until ``maximumPages`` are kept).
    mutating func insert(_ simhash: UInt64, url: UInt64) {
        guard prints.count < Self.maximumPages else { return }
        let index = Int32(prints.count)
        prints.append(simhash)
        urls.append(url)
        for table in 0..<4 {
            let key = Self.key(simhash, table)
            next.append(heads[key] ?? -1)
            heads[key] = index
        }
    }

    private static func key(_ simhash: UInt64, _ table: Int) -> UInt32 {
        UInt32(table) << 16 | UInt32((simhash >> UInt64(table * 16)) & 0xFFFF)
    }
}
