import CSQLite
import Items
import SQLite

/// The `searchlight` FTS5 tokenizer: `unicode61 remove_diacritics 2` for words (so café
/// matches cafe), and Chinese, Japanese and Korean runs as overlapping bigrams plus
/// unigrams, as Lucene's CJK analyzer indexes them.
///
/// unicode61 keeps a whole run of CJK characters as one token, so a two-character word
/// inside a sentence could never match, and FTS5's trigram tokenizer cannot match
/// queries shorter than three characters. Here a document's run `c1 c2 c3` is indexed as
/// `c1c2` with `c1` at the same position (FTS5_TOKEN_COLOCATED), `c2c3` with `c2`, and
/// `c3`. A query run of one character looks for that unigram; a longer one becomes the
/// phrase of its bigrams (`直播` → `直播`, `篮球直播` → `篮球 球直 直播`), which matches
/// exactly the documents that contain the run, so exact phrases rank first.
///
/// Registered on each connection through `fts5_api`; it wraps unicode61, found with
/// `xFindTokenizer`, and only rewrites the tokens that contain CJK characters. Text is
/// tokenized from Swift through ``Session``, which reads ASCII words, and words of ASCII and
/// plain CJK characters, itself and hands unicode61 only the words it must fold.
enum SearchTokenizer {
    static let name = "searchlight"

    /// The registration context: the wrapped tokenizer's implementation.
    private final class Factory {
        let unicode: fts5_tokenizer
        let unicodeContext: UnsafeMutableRawPointer?

        init(unicode: fts5_tokenizer, unicodeContext: UnsafeMutableRawPointer?) {
            self.unicode = unicode
            self.unicodeContext = unicodeContext
        }
    }

    /// One tokenizer instance (per FTS5 table): the wrapped unicode61 instance.
    private final class Instance {
        let unicode: fts5_tokenizer
        let inner: OpaquePointer

        init(unicode: fts5_tokenizer, inner: OpaquePointer) {
            self.unicode = unicode
            self.inner = inner
        }
    }

    /// What the unicode61 callback needs to pass tokens on.
    private struct Forwarding {
        var emit: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, Int32, Int32, Int32) -> Int32
        var context: UnsafeMutableRawPointer?
        var isQuery: Bool
    }

    private static let unicodeArguments: [StaticString] = ["remove_diacritics", "2"]

    static func register(on connection: SQLiteConnection) throws(SQLiteError) {
        let api = try FTS5API(connection)
        guard let unicode = api.findTokenizer("unicode61") else {
            throw SQLiteError(code: SQLITE_ERROR, message: "FTS5 has no unicode61 tokenizer")
        }
        let factory = Factory(unicode: unicode.tokenizer, unicodeContext: unicode.context)
        var tokenizer = fts5_tokenizer()
        tokenizer.xCreate = { context, _, _, out in
            let factory = Unmanaged<Factory>.fromOpaque(context!).takeUnretainedValue()
            var arguments = SearchTokenizer.unicodeArguments.map {
                UnsafePointer<CChar>?(UnsafeRawPointer($0.utf8Start).assumingMemoryBound(to: CChar.self))
            }
            var inner: OpaquePointer?
            let code = arguments.withUnsafeMutableBufferPointer {
                factory.unicode.xCreate(factory.unicodeContext, $0.baseAddress, Int32($0.count), &inner)
            }
            guard code == SQLITE_OK, let inner else { return code == SQLITE_OK ? SQLITE_ERROR : code }
            let instance = Instance(unicode: factory.unicode, inner: inner)
            out!.pointee = OpaquePointer(Unmanaged.passRetained(instance).toOpaque())
            return SQLITE_OK
        }
        tokenizer.xDelete = { pointer in
            let instance = Unmanaged<Instance>.fromOpaque(UnsafeRawPointer(pointer!)).takeRetainedValue()
            instance.unicode.xDelete(instance.inner)
        }
        tokenizer.xTokenize = { pointer, context, flags, text, length, emit in
            let instance = Unmanaged<Instance>.fromOpaque(UnsafeRawPointer(pointer!)).takeUnretainedValue()
            var forwarding = Forwarding(emit: emit!, context: context, isQuery: flags & FTS5_TOKENIZE_QUERY != 0)
            return withUnsafeMutablePointer(to: &forwarding) { state in
                instance.unicode.xTokenize(instance.inner, state, flags, text, length) { state, flags, token, length, start, end in
                    SearchTokenizer.forward(state!.assumingMemoryBound(to: Forwarding.self), flags, token!, length, start, end)
                }
            }
        }
        try api.createTokenizer(name, context: Unmanaged.passRetained(factory).toOpaque(), tokenizer: tokenizer) {
            Unmanaged<Factory>.fromOpaque($0!).release()
        }
    }

    // MARK: token rewriting

    private static func forward(
        _ state: UnsafeMutablePointer<Forwarding>, _ flags: Int32, _ token: UnsafePointer<CChar>, _ length: Int32, _ start: Int32, _ end: Int32
    ) -> Int32 {
        let bytes = UnsafeRawBufferPointer(start: token, count: Int(length)).bindMemory(to: UInt8.self)
        // CJK characters all start with a byte of 0xE1 or more in UTF-8; most tokens have none.
        guard bytes.contains(where: { $0 >= 0xE1 }) else {
            return state.pointee.emit(state.pointee.context, flags, token, length, start, end)
        }
        // Offsets inside the token map onto the text only when folding kept its length.
        let exact = end - start == length
        let query = state.pointee.isQuery
        var result = SQLITE_OK
        var firstOfToken = true
        func emit(_ lower: Int, _ upper: Int, colocated: Bool) {
            guard result == SQLITE_OK else { return }
            let tokenFlags = colocated ? FTS5_TOKEN_COLOCATED : (firstOfToken ? flags : 0)
            firstOfToken = false
            let tokenStart = exact ? start + Int32(lower) : start
            let tokenEnd = exact ? start + Int32(upper) : end
            result = state.pointee.emit(state.pointee.context, tokenFlags, token + lower, Int32(upper - lower), tokenStart, tokenEnd)
        }
        splitCJK(bytes, query: query) { lower, upper, colocated in emit(lower, upper, colocated: colocated) }
        return result
    }

    /// Splits one token into runs of CJK and other characters, in one pass: `emit` gets each
    /// piece's byte range and whether it sits at the position of the piece before it. A CJK
    /// character's bigram ends where the character after next starts, so each is emitted
    /// once that start is seen, from the last two starts kept (`older`, `newer`); the run's
    /// end settles its last one or two. Documents get each bigram with the character's
    /// unigram colocated, the last character alone; queries the bigrams only, or the
    /// character of a one-character run. The bigram comes first, so that a snippet, which
    /// takes a position's offsets from its first token, marks both characters.
    @inline(__always)
    static func splitCJK(_ bytes: UnsafeBufferPointer<UInt8>, query: Bool, _ emit: (Int, Int, Bool) -> Void) {
        var runStart = 0
        var runIsCJK: Bool?
        var older = 0
        var newer = 0
        var characters = 0
        func finishRun(at runEnd: Int) {
            guard let cjk = runIsCJK else { return }
            guard cjk else {
                emit(runStart, runEnd, false)
                return
            }
            if characters >= 2 {
                emit(older, runEnd, false)
                if !query { emit(older, newer, true) }
            }
            if !query || characters == 1 { emit(newer, runEnd, false) }
        }
        var i = 0
        while i < bytes.count {
            let (scalar, width) = decode(bytes, at: i)
            let cjk = isCJK(scalar)
            if cjk != runIsCJK {
                finishRun(at: i)
                runIsCJK = cjk
                runStart = i
                characters = 0
            }
            if cjk {
                if characters >= 2 {
                    emit(older, i, false)
                    if !query { emit(older, newer, true) }
                }
                older = newer
                newer = i
                characters += 1
            }
            i += width
        }
        finishRun(at: bytes.count)
    }

    /// CJK characters unicode61 keeps as they are, as letters (not separators, not folded,
    /// not diacritics): hiragana, katakana, the CJK ideographs of Unicode 1.1 and the Hangul
    /// syllables. A word made of these and ASCII letters and digits is split here without
    /// FTS5; `TokenizerFastPathTests` checks every one of them against unicode61.
    @inline(__always)
    static func isPlainCJK(_ v: UInt32) -> Bool {
        (0x3041...0x3096).contains(v) || (0x30A1...0x30FA).contains(v) || (0x4E00...0x9FA5).contains(v) || (0xAC00...0xD7A3).contains(v)
    }

    /// Decodes one UTF-8 scalar (FTS5 hands the tokenizer valid UTF-8 from unicode61).
    @inline(__always)
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> (UInt32, Int) {
        let lead = bytes[i]
        let width = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
        guard i + width <= bytes.count else { return (UInt32(lead), 1) }
        var value = width == 1 ? UInt32(lead) : UInt32(lead) & (0xFF >> (width + 1))
        for k in 1..<width { value = value << 6 | UInt32(bytes[i + k] & 0x3F) }
        return (value, width)
    }

    /// Han, kana and Hangul (the scripts Lucene's CJK bigram filter covers).
    static func isCJK(_ v: UInt32) -> Bool {
        switch v {
        case 0x1100...0x11FF, 0x2E80...0x2FDF, 0x3005...0x3007, 0x3021...0x3029, 0x3031...0x3035, 0x3038...0x303C,
            0x3040...0x30FF, 0x3100...0x31FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA960...0xA97F, 0xAC00...0xD7FF,
            0xF900...0xFAFF, 0xFF66...0xFFDC, 0x20000...0x3FFFF:
            return true
        default:
            return false
        }
    }

    // MARK: tokenizing from Swift

    /// An instance of the registered tokenizer, for analysing queries the same way FTS5
    /// will. Created once per connection and used under that connection's lock.
    final class Session {
        private let tokenizer: fts5_tokenizer
        private let instance: OpaquePointer
        /// The Snowball stemmers documents and queries are stemmed with.
        let stemmers = Stemmers()

        init(connection: SQLiteConnection) throws(SQLiteError) {
            let api = try FTS5API(connection)
            guard let found = api.findTokenizer(SearchTokenizer.name), let create = found.tokenizer.xCreate else {
                throw SQLiteError(code: SQLITE_ERROR, message: "the searchlight tokenizer is not registered")
            }
            var instance: OpaquePointer?
            guard create(found.context, nil, 0, &instance) == SQLITE_OK, let instance else {
                throw SQLiteError(code: SQLITE_ERROR, message: "cannot create the searchlight tokenizer")
            }
            self.tokenizer = found.tokenizer
            self.instance = instance
        }

        deinit {
            tokenizer.xDelete(instance)
            folding.deallocate()
        }

        func tokens(_ text: String, query: Bool) -> [String] {
            var tokens: [String] = []
            tokenize(text, mode: query ? .query : .document) { token, _, _, _ in
                tokens.append(String(decoding: token, as: UTF8.self))
            }
            return tokens
        }

        /// How the text is tokenized: documents index CJK runs as bigrams and the unigrams
        /// under them; queries look for the bigrams only (a run of one character for itself).
        enum Mode {
            case document, query
            var flags: Int32 { self == .query ? FTS5_TOKENIZE_QUERY : FTS5_TOKENIZE_DOCUMENT }
        }

        /// Calls `visit` for every token of `text` with its bytes, whether it sits at the
        /// position of the token before it (a CJK unigram under its bigram), and its byte
        /// range in `text`. The bytes are valid only during the call.
        func tokenize(_ text: String, mode: Mode, _ visit: (UnsafeRawBufferPointer, Bool, Int, Int) -> Void) {
            var text = text
            text.withUTF8 { tokenize($0, mode: mode, visit) }
        }

        /// ASCII words are read here, byte by byte, as unicode61 reads them (letters and
        /// digits are token characters, every other ASCII byte separates, A–Z fold to a–z);
        /// a run holding any other byte goes to the registered tokenizer whole, for
        /// unicode61's folding and the CJK split, with its offsets moved to the run's place.
        /// ASCII separators separate in unicode61 whatever surrounds them, so cutting there
        /// first changes no token (`TokenizerTests` compares the two over mixed text). Most
        /// of a page's words are ASCII, and each call into FTS5's tokenizer costs more than
        /// reading the word.
        func tokenize(_ bytes: UnsafeBufferPointer<UInt8>, mode: Mode, _ visit: (UnsafeRawBufferPointer, Bool, Int, Int) -> Void) {
            guard let base = bytes.baseAddress, bytes.count > 0 else { return }
            withoutActuallyEscaping(visit) { visit in
                let box = Visitor(visit)
                let count = bytes.count
                var i = 0
                while i < count {
                    while i < count, Self.isASCIISeparator(base[i]) { i += 1 }
                    guard i < count else { break }
                    let start = i
                    var wide = false
                    var upper = false
                    while i < count {
                        let byte = base[i]
                        if byte >= 0x80 {
                            wide = true
                        } else if Self.isASCIISeparator(byte) {
                            break
                        } else if byte &- 0x41 < 26 {
                            upper = true
                        }
                        i += 1
                    }
                    if wide, let folded = plainFolded(UnsafeBufferPointer(start: base + start, count: i - start)) {
                        let offset = start
                        SearchTokenizer.splitCJK(folded, query: mode == .query) { lower, upper, colocated in
                            visit(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(folded)[lower..<upper]), colocated, offset + lower, offset + upper)
                        }
                    } else if wide {
                        box.offset = start
                        _ = UnsafeRawPointer(base + start).withMemoryRebound(to: CChar.self, capacity: i - start) { chars in
                            tokenizer.xTokenize(instance, Unmanaged.passUnretained(box).toOpaque(), mode.flags, chars, Int32(i - start)) {
                                context, flags, token, length, start, end in
                                let box = Unmanaged<Visitor>.fromOpaque(context!).takeUnretainedValue()
                                box.visit(UnsafeRawBufferPointer(start: token, count: Int(length)), flags & FTS5_TOKEN_COLOCATED != 0,
                                          box.offset + Int(start), box.offset + Int(end))
                                return SQLITE_OK
                            }
                        }
                    } else if upper {
                        let folded = lowered(UnsafeRawBufferPointer(start: base + start, count: i - start))
                        visit(folded, false, start, i)
                    } else {
                        visit(UnsafeRawBufferPointer(start: base + start, count: i - start), false, start, i)
                    }
                }
            }
        }

        /// The same tokens through the registered tokenizer alone, the whole text in one
        /// call: the reference ``tokenize(_:mode:_:)`` is checked against in the tests.
        func tokenizeThroughFTS5(_ text: String, mode: Mode, _ visit: (UnsafeRawBufferPointer, Bool, Int, Int) -> Void) {
            var text = text
            text.withUTF8 { bytes in
                guard let base = bytes.baseAddress, bytes.count > 0 else { return }
                withoutActuallyEscaping(visit) { visit in
                    let box = Visitor(visit)
                    _ = UnsafeRawPointer(base).withMemoryRebound(to: CChar.self, capacity: bytes.count) { chars in
                        tokenizer.xTokenize(instance, Unmanaged.passUnretained(box).toOpaque(), mode.flags, chars, Int32(bytes.count)) {
                            context, flags, token, length, start, end in
                            let box = Unmanaged<Visitor>.fromOpaque(context!).takeUnretainedValue()
                            box.visit(UnsafeRawBufferPointer(start: token, count: Int(length)), flags & FTS5_TOKEN_COLOCATED != 0, Int(start), Int(end))
                            return SQLITE_OK
                        }
                    }
                }
            }
        }

        /// A word of ASCII letters and digits and plain CJK characters (``isPlainCJK(_:)``),
        /// which unicode61 would keep whole with only A–Z folded: that word folded, in the
        /// session's folding buffer; nil for any other word (it goes to unicode61).
        private func plainFolded(_ word: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
            var index = 0
            while index < word.count {
                let byte = word[index]
                if byte < 0x80 {
                    index += 1
                    continue
                }
                guard byte >= 0xE0, byte < 0xF0 else { return nil }
                let (scalar, width) = SearchTokenizer.decode(word, at: index)
                guard width == 3, SearchTokenizer.isPlainCJK(scalar) else { return nil }
                index += 3
            }
            let folded = lowered(UnsafeRawBufferPointer(word))
            return UnsafeBufferPointer(start: folded.baseAddress!.assumingMemoryBound(to: UInt8.self), count: folded.count)
        }

        /// An ASCII byte that is not a letter or a digit.
        @inline(__always)
        static func isASCIISeparator(_ byte: UInt8) -> Bool {
            byte < 0x80 && (byte | 0x20) &- 0x61 >= 26 && byte &- 0x30 >= 10
        }

        /// Where ASCII words are folded to lower case; grown as needed, owned by the session.
        private var folding = UnsafeMutablePointer<UInt8>.allocate(capacity: 64)
        private var foldingCapacity = 64

        /// The ASCII word in lower case, in the session's folding buffer (valid until the next call).
        private func lowered(_ word: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
            if word.count > foldingCapacity {
                folding.deallocate()
                foldingCapacity = max(word.count, foldingCapacity * 2)
                folding = .allocate(capacity: foldingCapacity)
            }
            for (index, byte) in word.enumerated() { folding[index] = byte &- 0x41 < 26 ? byte | 0x20 : byte }
            return UnsafeRawBufferPointer(start: folding, count: word.count)
        }

        private final class Visitor {
            let visit: (UnsafeRawBufferPointer, Bool, Int, Int) -> Void
            /// Where the run handed to the tokenizer starts in the whole text.
            var offset = 0
            init(_ visit: @escaping (UnsafeRawBufferPointer, Bool, Int, Int) -> Void) { self.visit = visit }
        }
    }
}
