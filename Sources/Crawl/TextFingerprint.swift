import TextUtilities

/// What the crawl remembers of a page's visible text to tell new content from old: a
/// 64-bit SimHash and the hashed shingles the URL-pattern budget counts as new or seen.
///
/// SimHash (Charikar 2002), as Manku, Jain and Das Sarma applied it to web crawling
/// ("Detecting Near-Duplicates for Web Crawling", WWW 2007): every feature is hashed to 64
/// bits, each bit position sums +1 or −1 over the features, and the fingerprint keeps the
/// signs. Pages whose features mostly agree get fingerprints a few bits apart; "a
/// fingerprint within Hamming distance 3 of another, out of 64 bits" is their
/// near-duplicate test, and ours. Features are shingles of three words (two characters for
/// Chinese, Japanese and Korean, written without spaces), lower-cased, over the title and
/// the visible body text as the extractor bounds it (4 KiB).
///
/// The shingles and words for novelty leave out words with digits in them, so that a page
/// differing from the last only in its dates or numbers (a calendar day, an empty result
/// page) shows nothing new.
struct TextFingerprint: Sendable, Equatable {
    var simhash: UInt64
    /// Distinct hashes of the digit-free shingles, at most ``maximumShingles``.
    var shingles: [UInt64]
    /// Distinct hashes of the digit-free words (CJK characters), at most ``maximumShingles``.
    var words: [UInt64] = []
    /// What names the page as a thing of its own: each digit-free word of its title and main
    /// heading, and its schema.org name and each deep link hashed whole without digits
    /// (``identity(titles:names:)``).
    var identity: [UInt64] = []

    static let maximumShingles = 2048
    /// "≤ 3 of 64 bits" (Manku et al.).
    static let nearDuplicateDistance = 3

    init(simhash: UInt64, shingles: [UInt64]) {
        self.simhash = simhash
        self.shingles = shingles
    }

    init(title: String?, text: String) {
        var tokens: [Token] = []
        if let title { Self.tokenize(title, into: &tokens) }
        Self.tokenize(text, into: &tokens)
        var counts = BitCounts()
        Self.forEachShingle(tokens) { counts.add($0) }
        simhash = counts.majority()
        let most = min(Self.maximumShingles, tokens.count + 1)
        var distinct = HashSet64(capacity: most)
        Self.forEachShingle(tokens.filter { !$0.hasDigit }) { feature in
            if distinct.count < Self.maximumShingles { distinct.insert(feature) }
        }
        shingles = distinct.elements
        var vocabulary = HashSet64(capacity: most)
        for token in tokens where !token.hasDigit && vocabulary.count < Self.maximumShingles { vocabulary.insert(token.hash) }
        words = vocabulary.elements
    }

    /// How often each of 64 bit positions is set over many features, for SimHash's vote:
    /// eight 8-bit counters per 64-bit word, each feature byte spread over its word's lanes
    /// by a table (a few operations a feature instead of one per bit), drained into 32-bit
    /// totals before a lane can overflow.
    struct BitCounts {
        private var lanes = [UInt64](repeating: 0, count: 8)
        private var ones = [Int32](repeating: 0, count: 64)
        private var features = 0
        private var pending = 0

        /// Byte `b` as eight lanes of one byte each, lane `i` holding bit `i` of `b`.
        private static let spread: [UInt64] = (0..<256).map { (byte: Int) -> UInt64 in
            var lanes: UInt64 = 0
            for bit in 0..<8 where (byte >> bit) & 1 == 1 { lanes |= 1 << UInt64(8 * bit) }
            return lanes
        }

        mutating func add(_ feature: UInt64) {
            for word in 0..<8 { lanes[word] &+= Self.spread[Int(truncatingIfNeeded: feature >> UInt64(8 * word)) & 0xFF] }
            features += 1
            pending += 1
            if pending == 255 { drain() }
        }

        private mutating func drain() {
            for word in 0..<8 {
                for lane in 0..<8 { ones[8 * word + lane] += Int32(truncatingIfNeeded: lanes[word] >> UInt64(8 * lane)) & 0xFF }
                lanes[word] = 0
            }
            pending = 0
        }

        /// The fingerprint: each bit set where more features had it set than clear (0 for
        /// no features).
        mutating func majority() -> UInt64 {
            drain()
            var simhash: UInt64 = 0
            for bit in 0..<64 where 2 * Int(ones[bit]) > features { simhash |= 1 << UInt64(bit) }
            return simhash
        }
    }

    /// A set of 64-bit hashes in insertion order: open addressing over the hashes' own low
    /// bits (they are already well mixed, so Swift's seeded hashing of them was wasted work).
    struct HashSet64 {
        private var slots: [UInt64]
        private var used: [Bool]
        private(set) var elements: [UInt64] = []
        var count: Int { elements.count }

        /// - Parameter capacity: how many elements to make room for (more grow the table).
        init(capacity: Int) {
            var size = 16
            while size < capacity * 2 { size <<= 1 }
            slots = [UInt64](repeating: 0, count: size)
            used = [Bool](repeating: false, count: size)
            elements.reserveCapacity(capacity)
        }

        mutating func insert(_ value: UInt64) {
            if elements.count * 2 >= slots.count {
                // At most half full, so a probe always ends: twice the room, refilled in order.
                let kept = elements
                self = HashSet64(capacity: slots.count)
                for element in kept { insert(element) }
            }
            let mask = slots.count - 1
            var slot = Int(truncatingIfNeeded: value ^ (value >> 32)) & mask
            while used[slot] {
                if slots[slot] == value { return }
                slot = (slot + 1) & mask
            }
            used[slot] = true
            slots[slot] = value
            elements.append(value)
        }
    }

    /// The page's identity hashes: the digit-free words of `titles` (title, main heading), and
    /// each of `names` (a schema.org name, a deep link) whole, digits left out — "Trail Runner
    /// 3" and "Storm jacket" differ, "Events on 17 December" and "… 18 December" do not.
    static func identity(titles: [String], names: [String]) -> [UInt64] {
        var hashes = Set<UInt64>()
        for title in titles.prefix(4) {
            var tokens: [Token] = []
            tokenize(String(title.prefix(512)), into: &tokens)
            for token in tokens where !token.hasDigit && hashes.count < 256 { hashes.insert(FNV.mix(token.hash ^ 0x7469_746C_65)) }
        }
        for name in names.prefix(16) {
            var tokens: [Token] = []
            tokenize(String(name.prefix(512)), into: &tokens)
            let words = tokens.filter { !$0.hasDigit }
            guard !words.isEmpty else { continue }
            hashes.insert(words.reduce(FNV.offset) { FNV.mix($0 ^ $1.hash) })
        }
        return Array(hashes)
    }

    /// Bits in which two fingerprints differ.
    static func distance(_ a: UInt64, _ b: UInt64) -> Int { (a ^ b).nonzeroBitCount }

    // MARK: tokens

    struct Token {
        var hash: UInt64
        var hasDigit: Bool
        /// A single Chinese, Japanese or Korean character.
        var isCJK: Bool
    }

    /// Words of letters and digits, lower-cased; each CJK character a token of its own.
    static func tokenize(_ text: String, into tokens: inout [Token]) {
        var hash = FNV.offset
        var length = 0
        var hasDigit = false
        func endWord() {
            if length > 0 { tokens.append(Token(hash: FNV.finish(hash), hasDigit: hasDigit, isCJK: false)) }
            hash = FNV.offset
            length = 0
            hasDigit = false
        }
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if value < 0x80 {
                var byte = UInt8(value)
                if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") { byte += 32 }
                let digit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
                if digit || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) {
                    hash = FNV.add(byte, to: hash)
                    length += 1
                    hasDigit = hasDigit || digit
                } else {
                    endWord()
                }
            } else if isCJK(value) {
                endWord()
                tokens.append(Token(hash: FNV.finish(FNV.add(value, to: FNV.offset)), hasDigit: false, isCJK: true))
            } else if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
                for lower in scalar.properties.lowercaseMapping.unicodeScalars { hash = FNV.add(lower.value, to: hash) }
                length += 1
                hasDigit = hasDigit || scalar.properties.numericType != nil
            } else {
                endWord()
            }
        }
        endWord()
    }

    /// Calls `body` with each shingle's hash: three tokens from each word, two from each CJK
    /// character followed by another; a text shorter than one shingle is one feature.
    static func forEachShingle(_ tokens: [Token], _ body: (UInt64) -> Void) {
        if tokens.count < 3 {
            guard !tokens.isEmpty else { return }
            body(tokens.reduce(FNV.offset) { FNV.mix($0 ^ $1.hash) })
            return
        }
        for index in tokens.indices {
            let width = tokens[index].isCJK ? 2 : 3
            guard index + width <= tokens.count else { break }
            var feature = FNV.offset
            for token in tokens[index..<index + width] { feature = FNV.mix(feature ^ token.hash) }
            body(feature)
        }
    }

    /// Han, kana and Hangul: the scripts written without spaces between words.
    static func isCJK(_ value: UInt32) -> Bool {
        (0x3040...0x30FF).contains(value) || (0x3400...0x4DBF).contains(value) || (0x4E00...0x9FFF).contains(value)
            || (0xAC00...0xD7AF).contains(value) || (0xF900...0xFAFF).contains(value) || (0x20000...0x2FA1F).contains(value)
    }
}

/// 64-bit FNV-1a for token bytes, finished with SplitMix64's mixer so that every output bit
/// depends on every input bit (SimHash needs its 64 bits independent). Stable across runs
/// and machines, unlike Swift's seeded `Hasher`: fingerprints are stored.
enum FNV {
    static let offset = FNV1a.offset

    static func add(_ byte: UInt8, to hash: UInt64) -> UInt64 { FNV1a.add(byte, to: hash) }

    /// A scalar's four bytes, low first.
    static func add(_ scalar: UInt32, to hash: UInt64) -> UInt64 {
        var hash = hash
        for shift in stride(from: 0, to: 32, by: 8) { hash = FNV1a.add(UInt8(truncatingIfNeeded: scalar >> UInt32(shift)), to: hash) }
        return hash
    }

    static func finish(_ hash: UInt64) -> UInt64 { mix(hash) }

    static func mix(_ value: UInt64) -> UInt64 { SplitMix64.mix(value &+ 0x9E37_79B9_7F4A_7C15) }

    /// A string's hash (the URL of a page, for the near-duplicate index).
    static func hash(_ text: String) -> UInt64 { finish(FNV1a.hash(text.utf8)) }
}
