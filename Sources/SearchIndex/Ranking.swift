import FoundationEssentials
import Glibc
import Items
import TextUtilities

/// How results are ordered.
///
///     score = relevance × quality × rating × engagement × freshness
///
/// - relevance: FTS5's bm25 negated (bm25 is lower-is-better), with column weights
///   title 10, keywords 5, description 3, body text 1 (``IndexSchema/columnWeights``).
/// - quality: 0.5 for keyword stuffing (see ``quality(of:)``), else 1.
/// - rating: 1 + 0.25 × (rating / scale − 0.5) × confidence, where confidence grows with
///   the number of ratings (log₁₀(1 + count) / 2, at most 1): between 0.875 and 1.125.
/// - engagement: (smoothed CTR / prior CTR)^0.25, kept within 0.75…1.5. The CTR is
///   smoothed toward a prior of 10 % as if every item had 20 impressions and 2 clicks
///   already, so a new item scores exactly 1 and is not punished for being new. Counts
///   reported with a key always count; anonymous ones (the search page's) only once
///   ``anonymousNetworkThreshold`` distinct networks have contributed, each at most one
///   impression and one click a day (``engagementCounts(_:)``).
/// - freshness: 1 + 0.1 × 2^(−age in days / 30).
///
/// The formula reorders the 50 best candidates by bm25 (``ResultOrder``); equal scores are
/// ordered by ``ItemKey/orderKey``, so results are one total order.
public enum Ranking {
    static let priorCTR = 0.1
    static let priorImpressions = 20.0
    /// Distinct client networks (IPv4 /24, IPv6 /56) whose anonymous engagement an item
    /// needs before it counts at all: one client, or one office, moves nothing.
    public static let anonymousNetworkThreshold = 3

    /// The impressions and clicks the ranking uses: the keyed ones, plus the anonymous
    /// ones once enough networks stand behind them.
    public static func engagementCounts(_ counts: EngagementCounts) -> (impressions: Int, clicks: Int) {
        guard counts.anonymousNetworks >= anonymousNetworkThreshold else { return (counts.impressions, counts.clicks) }
        return (counts.impressions + counts.anonymousImpressions, counts.clicks + counts.anonymousClicks)
    }

    public static func score(
        bm25: Double, quality: Double, rating: Double?, ratingScale: Double, ratingCount: Int?, impressions: Int, clicks: Int,
        updated: Date, now: Date
    ) -> Double {
        parts(bm25: bm25, quality: quality, rating: rating, ratingScale: ratingScale, ratingCount: ratingCount, impressions: impressions,
              clicks: clicks, updated: updated, now: now).total
    }

    /// The formula's factors one by one, and their product (``score(bm25:quality:rating:ratingScale:ratingCount:impressions:clicks:updated:now:)``).
    public static func parts(
        bm25: Double, quality: Double, rating: Double?, ratingScale: Double, ratingCount: Int?, impressions: Int, clicks: Int,
        updated: Date, now: Date
    ) -> Findability.Score {
        let relevance = max(0, -bm25)
        var ratingBoost = 1.0
        // Stored values are checked on the way in; a bad one still cannot make a NaN here.
        if let rating, rating.isFinite, ratingScale.isFinite, ratingScale > 0 {
            let confidence = min(1, log10(1 + Double(max(0, ratingCount ?? 1))) / 2)
            ratingBoost = 1 + 0.25 * (min(max(rating / ratingScale, 0), 1) - 0.5) * confidence
        }
        let smoothed = (Double(max(0, clicks)) + priorCTR * priorImpressions) / (Double(max(0, impressions)) + priorImpressions)
        let engagement = min(1.5, max(0.75, pow(smoothed / priorCTR, 0.25)))
        let ageDays = max(0, now.timeIntervalSince(updated) / 86_400)
        let freshness = 1 + 0.1 * pow(2, -ageDays / 30)
        return Findability.Score(relevance: relevance, quality: quality, rating: ratingBoost, engagement: engagement, freshness: freshness,
                                 total: relevance * quality * ratingBoost * engagement * freshness)
    }

    /// 0.5 when an item looks keyword-stuffed, else 1: more than 30 keywords, a title in
    /// which one word comes 4 or more times and makes up over a third of its words, or one
    /// word making up over a quarter of a text of 20 words or more. Words are runs of letters
    /// and digits of at least three bytes, compared with ASCII case folded; only the first
    /// 8 KB of text are read. (A long title of plain prose repeats its function words —
    /// "the role of the librarian and the function of the public library" — without
    /// stuffing anything: the share tells the two apart.)
    public static func quality(of item: SearchableItem) -> Double {
        quality(title: item.title, keywords: item.keywords, description: item.contentDescription ?? "", body: item.bodyText)
    }

    /// ``quality(of:)`` of an item's texts (a stored row's, when an index is migrated).
    static func quality(title: String, keywords: [String], description: String, body: String) -> Double {
        if keywords.count > 30 { return 0.5 }
        let titleWords = WordCounts(title, expectedBytes: title.utf8.count)
        if titleWords.maximum >= 4, 3 * titleWords.maximum > titleWords.total { return 0.5 }
        let keywords = keywords.joined(separator: " ")
        var counts = WordCounts(title, expectedBytes: title.utf8.count + keywords.utf8.count + description.utf8.count + body.utf8.count)
        counts.add(keywords)
        counts.add(description)
        counts.add(body)
        if counts.total >= 20, Double(counts.maximum) > 0.25 * Double(counts.total) { return 0.5 }
        return 1
    }

    /// Word frequencies over UTF-8 bytes, hashed with FNV-1a into a small open-addressing
    /// table (the byte budget bounds the words, so it never grows): cheap enough to run on
    /// every item a crawl indexes.
    struct WordCounts {
        static let byteBudget = 8 * 1024
        /// Room for every word the bytes to be read can hold (a word is at least three bytes
        /// and a separator), at most three quarters full, with 32-bit keys and 16-bit counts;
        /// sized to those bytes, since clearing a table sized for the whole budget cost more
        /// than counting a short item's words.
        private let mask: Int
        private var hashes: [UInt32]
        private var counts: [UInt16]
        private(set) var total = 0
        private(set) var maximum = 0
        private var bytesRead = 0
        /// Distinct words in the table; past three quarters of it (more text than expected)
        /// new words are not counted, so a probe always ends.
        private var distinct = 0

        /// - Parameter expectedBytes: how many bytes all the texts added will hold.
        init(_ text: String, expectedBytes: Int) {
            var slots = 16
            while slots * 3 < 4 * (min(expectedBytes, Self.byteBudget) / 4 + 4) { slots <<= 1 }
            mask = slots - 1
            hashes = [UInt32](repeating: 0, count: slots)
            counts = [UInt16](repeating: 0, count: slots)
            add(text)
        }

        mutating func add(_ text: String) {
            var text = text
            text.withUTF8 { bytes in
                var hash = FNV1a.offset
                var length = 0
                for byte in bytes.prefix(max(0, Self.byteBudget - bytesRead)) {
                    let isWordByte = byte >= 0x80 || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                    if isWordByte {
                        hash = FNV1a.add(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte, to: hash)
                        length += 1
                    } else {
                        finishWord(hash, length)
                        hash = FNV1a.offset
                        length = 0
                    }
                }
                finishWord(hash, length)
                bytesRead += bytes.count
            }
        }

        private mutating func finishWord(_ hash: UInt64, _ length: Int) {
            guard length >= 3 else { return }
            total += 1
            let key = UInt32(truncatingIfNeeded: hash ^ (hash >> 32)) | 1
            var slot = Int(truncatingIfNeeded: hash >> 17) & mask
            while hashes[slot] != 0, hashes[slot] != key { slot = (slot + 1) & mask }
            if hashes[slot] == 0 {
                guard distinct * 4 < (mask + 1) * 3 else { return }
                distinct += 1
            }
            hashes[slot] = key
            counts[slot] &+= 1
            maximum = max(maximum, Int(counts[slot]))
        }
    }
}
