/// "Did you mean …?" for a misspelt name: the known name nearest by Levenshtein distance,
/// when it is close enough to be a slip (at most 3 edits, and fewer than half the name).
/// One place for every such hint: mapping fields and key paths, meta-tag properties, API
/// fields.
public enum Suggestion {
    public static func nearest(to name: String, in known: some Sequence<String>) -> String? {
        let lower = name.lowercased()
        var best: (name: String, distance: Int)?
        for candidate in known {
            let distance = self.distance(lower, candidate.lowercased())
            if distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        guard let best, best.distance > 0 || lower != best.name, best.distance <= min(3, max(1, name.count / 2)) else { return nil }
        return best.name
    }

    /// Levenshtein distance over the first 64 bytes of each.
    public static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.utf8.prefix(64)), b = Array(b.utf8.prefix(64))
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
