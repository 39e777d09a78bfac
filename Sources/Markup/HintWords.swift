/// Finds the class and id words that say what an element holds (``MainText/Hint``) in one
/// pass over the attribute values: an Aho–Corasick automaton for the words matched anywhere
/// in a value (`site-footer`, `sidebarLeft`), and a whole-word check for the short ones
/// matched only between non-letters (`nav`, `main-nav`, not `canvas`). A page has thousands
/// of class attributes; each byte costs a table step, not a scan per word.
struct HintWords: Sendable {
    struct Found: OptionSet, Sendable {
        let rawValue: UInt8
        static let comments = Found(rawValue: 1)
        static let negative = Found(rawValue: 2)
        static let positive = Found(rawValue: 4)
        /// A teaser: of another page (boilerplate) or the article's own lead (content).
        static let teaser = Found(rawValue: 8)
    }

    static let shared = HintWords(
        anywhere: [
            (.comments, ["comment", "disqus", "respond", "replies"]),
            (.teaser, ["teaser"]),
            (.negative, [
                "menu", "navbar", "navigation", "footer", "banner", "login", "pagination", "pager", "toolbar", "masthead", "print-only",
                "breadcrumb", "sidebar", "side-bar", "share", "sharing", "social", "related", "recommend", "promo", "advert", "sponsor",
                "cookie", "consent", "gdpr", "popup", "modal", "newsletter", "subscribe", "signup", "sign-up", "widget", "tagcloud",
                "outbrain", "taboola", "you-may-also", "also-like", "more-stories", "most-popular", "trending", "screen-reader",
                "visually-hidden", "sr-only", "skip-link", "skiplink", "author", "contributor", "byline", "caption", "credit", "copyright", "table-of-contents",
            ]),
            (.positive, [
                "article", "content", "entry", "post-body", "postbody", "post-content", "story", "blog-post", "main-text", "maintext",
                "prose", "markdown", "text-body", "articlebody",
            ]),
        ],
        negativeWords: ["nav", "ad", "ads", "header", "topbar", "tags", "hidden", "hid", "meta", "aside", "bio", "toc"])

    /// Symbols: a–z are 0–25, `-` is 26, anything else 27 (in no word: back to the root).
    private static let symbolCount = 28
    private let symbols: [UInt8]
    /// The complete automaton: `transitions[state * symbolCount + symbol]`.
    private let transitions: [Int32]
    /// What reaching each state means, its failure chain included.
    private let output: [Found]
    /// The whole words, lower-case letters packed into an integer (at most 8).
    private let wholeWords: [UInt64]

    /// Words of lower-case letters and `-` only.
    init(anywhere: [(Found, [StaticString])], negativeWords: [StaticString]) {
        var symbols = [UInt8](repeating: 27, count: 256)
        for letter in UInt8(ascii: "a")...UInt8(ascii: "z") {
            symbols[Int(letter)] = letter - UInt8(ascii: "a")
            symbols[Int(letter - 0x20)] = letter - UInt8(ascii: "a")
        }
        symbols[Int(UInt8(ascii: "-"))] = 26
        self.symbols = symbols

        let width = Self.symbolCount
        var next = [Int32](repeating: -1, count: width)
        var output: [Found] = [[]]
        for (kind, words) in anywhere {
            for word in words {
                var state = 0
                for byte in UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount) {
                    let slot = state * width + Int(symbols[Int(byte)])
                    if next[slot] < 0 {
                        next[slot] = Int32(output.count)
                        output.append([])
                        next += [Int32](repeating: -1, count: width)
                    }
                    state = Int(next[slot])
                }
                output[state].insert(kind)
            }
        }
        // Breadth first, so that a state's failure target is complete before it is read.
        var failure = [Int](repeating: 0, count: output.count)
        var queue: [Int] = []
        for symbol in 0..<width {
            if next[symbol] < 0 { next[symbol] = 0 } else { queue.append(Int(next[symbol])) }
        }
        var head = 0
        while head < queue.count {
            let state = queue[head]
            head += 1
            output[state].formUnion(output[failure[state]])
            for symbol in 0..<width {
                let slot = state * width + symbol
                let fallback = next[failure[state] * width + symbol]
                if next[slot] < 0 {
                    next[slot] = fallback
                } else {
                    failure[Int(next[slot])] = Int(fallback)
                    queue.append(Int(next[slot]))
                }
            }
        }
        transitions = next
        self.output = output
        wholeWords = negativeWords.map { word in
            UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount).reduce(0) { $0 << 8 | UInt64($1) }
        }
    }

    /// `label`, packed as ``wholeWords`` are.
    private static let label = packed("label")
    private static let hidden = packed("hidden")
    /// The words after `hidden-` that name a screen size or medium rather than hiding.
    private static let screens: Set<UInt64> = Set(["xs", "sm", "md", "lg", "xl", "xxl", "print", "phone", "tablet", "desktop", "mobile"].map(packed))

    private static func packed(_ word: String) -> UInt64 { word.utf8.reduce(0) { $0 << 8 | UInt64($1) } }

    /// Adds to `found` what the NUL-terminated `value` says, reading at most `budget` bytes
    /// (and taking them off it).
    func scan(_ value: UnsafePointer<UInt8>, budget: inout Int, into found: inout Found) {
        symbols.withUnsafeBufferPointer { symbols in
            transitions.withUnsafeBufferPointer { transitions in
                output.withUnsafeBufferPointer { output in
                    var state = 0
                    var word: UInt64 = 0
                    var wordLength = 0
                    // The word before, when a `-` joined it to this one: a word after `label-`
                    // is about a label (Drupal prints `field--label-hidden` on nearly every
                    // field, its text shown and its label not).
                    var previous: UInt64 = 0
                    // A `hidden-` waiting for the word after it: `hidden-xs`, `hidden-phone`,
                    // `hidden-print` (Bootstrap's) hide on some screens or on paper only.
                    var hiddenBefore = false
                    var index = 0
                    while budget > 0 {
                        let byte = value[index]
                        let symbol = byte == 0 ? 27 : Int(symbols[Int(byte)])
                        state = Int(transitions[state &* Self.symbolCount &+ symbol])
                        found.formUnion(output[state])
                        if symbol < 26 {
                            word = word << 8 | UInt64(byte | 0x20)
                            wordLength &+= 1
                        } else {
                            if hiddenBefore, wordLength > 0 {
                                hiddenBefore = false
                                if !Self.screens.contains(word) { found.insert(.negative) }
                            }
                            if wordLength >= 2, wordLength <= 8, previous != Self.label, wholeWords.contains(word) {
                                if word == Self.hidden, symbol == 26 { hiddenBefore = true } else { found.insert(.negative) }
                            }
                            previous = symbol == 26 && wordLength > 0 ? word : (symbol == 26 ? previous : 0)
                            word = 0
                            wordLength = 0
                        }
                        if byte == 0 { break }
                        index &+= 1
                        budget &-= 1
                    }
                    if hiddenBefore && (wordLength == 0 || !Self.screens.contains(word)) { found.insert(.negative) }
                    if wordLength >= 2, wordLength <= 8, previous != Self.label, wholeWords.contains(word) { found.insert(.negative) }
                }
            }
        }
    }
}
