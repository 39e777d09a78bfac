import TextUtilities

/// Collects a page's text as blocks for ``MainText``, from the parser's events, in the
/// same pass as the rest of extraction: every block-level element starts a node of a tree
/// that mirrors the page's layout, every run of text between block boundaries is a block
/// of the innermost node, and each block knows how much of its text sits inside links.
/// Class, id, ARIA role and `itemprop` hints are read from the block-level elements'
/// attributes; hidden elements (`hidden`, `aria-hidden`, `display:none`, scripts, ruby
/// annotations, form controls) give no text.
///
/// Bounded: at most ``maximumTextBytes`` of text, ``maximumBlocks`` blocks and
/// ``maximumNodes`` nodes are kept (the rest of a page adds nothing); nesting deeper than
/// ``maximumDepth`` is folded into the deepest node. Not thread-safe: one per parse.
final class MainTextCollector {
    static let maximumTextBytes = 1 << 20
    static let maximumBlocks = 50_000
    static let maximumNodes = 50_000
    static let maximumDepth = 256

    // The state below is unchecked for exclusive access: the parser's callbacks come one after
    // another on one thread and none re-enters another, and a class's stored properties are
    // otherwise checked at run time on every access (3 % of extraction, measured).

    /// The text of every block, in one buffer allocated by hand: written a byte at a time
    /// from the parser's callbacks, where an Array's checks would cost more than the parse.
    @exclusivity(unchecked) private var storage: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) private var capacity: Int
    @exclusivity(unchecked) private var count = 0
    @exclusivity(unchecked) private(set) var blocks: [MainText.Block] = []
    @exclusivity(unchecked) private(set) var nodes: [MainText.Node] = [MainText.Node(parent: -1, tag: .block, hint: .none)]

    /// Open elements: the node each opened (or -1), whether it hid its text, and whether it
    /// is a date (a `time` element that is not a duration).
    @exclusivity(unchecked) private var stack: [(node: Int32, hides: Bool, dates: Bool, links: Bool)] = []
    @exclusivity(unchecked) private var current: Int32 = 0
    @exclusivity(unchecked) private var hiddenDepth = 0
    @exclusivity(unchecked) private var linkDepth = 0
    @exclusivity(unchecked) private var timeDepth = 0
    @exclusivity(unchecked) private var blockStart = 0
    @exclusivity(unchecked) private var blockLinkBytes = 0
    @exclusivity(unchecked) private var blockTimeBytes = 0
    @exclusivity(unchecked) private var blockCommas = 0
    @exclusivity(unchecked) private var lastWasSpace = true
    @exclusivity(unchecked) private var full = false

    init(expectedBytes: Int = 0) {
        capacity = min(max(expectedBytes, 16 * 1024), Self.maximumTextBytes + 8)
        storage = .allocate(capacity: capacity)
    }

    deinit { storage.deallocate() }

    /// Room for `more` bytes (and a separator), within ``maximumTextBytes``.
    private func reserve(_ more: Int) {
        let needed = min(count + more + 8, Self.maximumTextBytes + 8)
        guard needed > capacity else { return }
        var grown = capacity
        while grown < needed { grown *= 2 }
        grown = min(grown, Self.maximumTextBytes + 8)
        let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        larger.update(from: storage, count: count)
        storage.deallocate()
        storage = larger
        capacity = grown
    }

    /// - Parameter isTime: a `time` element: its text is counted as the block's date text,
    ///   unless its `datetime` is a duration (`PT15M`, a recipe's cooking time).
    func start(_ tag: BlockTag, isLink: Bool, isTime: Bool = false, attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?) {
        // A `javascript:` link is a control that shows its text, not a link to another page.
        let links = isLink && !(HTMLEventCollector.attributeValue(attributes, "href").map(Self.isScript) ?? false)
        if links { linkDepth += 1 }
        let dates = isTime && HTMLEventCollector.attributeValue(attributes, "datetime").map { $0[0] | 0x20 != UInt8(ascii: "p") } ?? isTime
        if dates { timeDepth += 1 }
        let hint = tag == .inline && !isLink ? MainText.Hint.none : MainText.Hint(attributes)
        let hides = tag == .hidden || tag == .annotation || hint == .hidden
        if hides {
            // Hidden text (a script) separates words, not blocks; a ruby annotation not even that.
            if tag != .annotation { softBreak() }
            hiddenDepth += 1
        }
        var node: Int32 = -1
        if tag.startsBlock, !hides {
            flush()
            if tag != .lineBreak, !hides, nodes.count < Self.maximumNodes, stack.count < Self.maximumDepth {
                nodes.append(MainText.Node(parent: current, tag: tag, hint: hint))
                node = Int32(nodes.count - 1)
                current = node
            }
        }
        stack.append((node, hides, dates, links))
    }

    /// Whether an `href` runs script (`javascript:…`, any case, after spaces): a control, not a link.
    static func isScript(_ href: UnsafePointer<UInt8>) -> Bool {
        var at = 0
        while href[at] == 0x20 || href[at] == 0x09 || href[at] == 0x0A || href[at] == 0x0D { at += 1 }
        for (offset, byte) in "javascript:".utf8.enumerated() where href[at + offset] | (byte == 0x3A ? 0 : 0x20) != byte { return false }
        return true
    }

    func end() {
        guard let (node, hides, dates, links) = stack.popLast() else { return }
        if links { linkDepth -= 1 }
        if dates { timeDepth -= 1 }
        if node >= 0 { flush() }
        if hides { hiddenDepth -= 1 }
        if node >= 0 { current = nodes[Int(node)].parent }
    }

    private func softBreak() {
        guard hiddenDepth == 0, !lastWasSpace, count > blockStart, !full else { return }
        reserve(1)
        storage[count] = 0x20
        count += 1
        lastWasSpace = true
    }

    /// Appends text with whitespace runs collapsed, U+00AD (soft hyphen), U+200B (zero-width
    /// space), U+2060 (word joiner) and U+FEFF left out (invisible, and they split words; the
    /// zero-width joiner and non-joiner stay, as scripts spell with them), and commas counted
    /// for the block's score. Text that needs only copying goes eight bytes at a time, the
    /// rest a byte at a time. The loop works on locals and writes the state back once: a
    /// class's stored properties touched per byte would each pay a dynamic exclusivity check.
    func characters(_ input: UnsafeBufferPointer<UInt8>) {
        guard hiddenDepth == 0, !full, let base = input.baseAddress else { return }
        var length = input.count
        if count + length > Self.maximumTextBytes {
            // Output never outgrows input, so cutting the input (at a character boundary)
            // is the only check the limit needs.
            length = max(0, Self.maximumTextBytes - count)
            while length > 0, base[length] & 0xC0 == 0x80 { length -= 1 }
            full = true
        }
        reserve(length)
        let out = storage
        var count = self.count
        var lastWasSpace = self.lastWasSpace
        var commas = blockCommas
        let start = blockStart
        let before = count
        var index = 0
        while index < length {
            // Eight bytes at once while they need nothing but copying.
            if index &+ 8 <= length {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                if let spaces = Self.copyableSpaces(word), !(lastWasSpace && spaces & 0x80 != 0) {
                    UnsafeMutableRawPointer(out + count).storeBytes(of: word.littleEndian, as: UInt64.self)
                    count &+= 8
                    index &+= 8
                    // Commas are rare, and a popcount without the instruction is not cheap.
                    let commaBytes = ByteScan.equalBytes(word, 0x2C)
                    if commaBytes != 0 { commas &+= commaBytes.nonzeroBitCount }
                    lastWasSpace = spaces >> 63 != 0
                    continue
                }
            }
            let chunkEnd = min(index &+ 8, length)
            while index < chunkEnd {
                let byte = base[index]
                index &+= 1
                // 0x2D...0xC1: neither whitespace, a comma, nor the lead byte of an invisible.
                if byte &- 0x2D < 0xC2 - 0x2D {
                    out[count] = byte
                    count &+= 1
                    lastWasSpace = false
                    continue
                }
                switch byte {
                case 0x20, 0x0A, 0x09, 0x0D, 0x0C:
                    if !lastWasSpace, count > start {
                        out[count] = 0x20
                        count &+= 1
                        lastWasSpace = true
                    }
                    continue
                case 0x2C:
                    commas &+= 1
                case 0xC2 where index < length && base[index] == 0xAD:
                    index &+= 1
                    continue
                case 0xE2 where index + 1 < length
                    && ((base[index] == 0x80 && base[index + 1] == 0x8B) || (base[index] == 0x81 && base[index + 1] == 0xA0)):
                    index &+= 2
                    continue
                case 0xEF where index + 1 < length && base[index] == 0xBB && base[index + 1] == 0xBF:
                    index &+= 2
                    continue
                default:
                    break
                }
                out[count] = byte
                count &+= 1
                lastWasSpace = false
            }
        }
        if linkDepth > 0 { blockLinkBytes += count - before }
        if timeDepth > 0 { blockTimeBytes += count - before }
        self.lastWasSpace = lastWasSpace
        self.count = count
        blockCommas = commas
    }

    /// For eight bytes read as a little-endian word: the mask of its spaces (0x80 in each
    /// byte that is 0x20) when the word can be copied as it is — no control characters
    /// (tabs, newlines), no lead byte of an invisible (0xC2, 0xE2, 0xEF), no two spaces in
    /// a row — else nil.
    @inline(__always)
    static func copyableSpaces(_ word: UInt64) -> UInt64? {
        let high: UInt64 = 0x8080_8080_8080_8080
        // Some byte below 0x20 (exact as a whole, whatever the bytes).
        guard (word &- 0x2020_2020_2020_2020) & ~word & high == 0 else { return nil }
        if word & high != 0, ByteScan.equalBytes(word, 0xC2) | ByteScan.equalBytes(word, 0xE2) | ByteScan.equalBytes(word, 0xEF) != 0 { return nil }
        let spaces = ByteScan.equalBytes(word, 0x20)
        guard spaces & (spaces << 8) == 0 else { return nil }
        return spaces
    }

    /// Ends the block being collected, if it has any text.
    func flush() {
        var end = count
        if end > blockStart, storage[end - 1] == 0x20 { end -= 1 }
        if end > blockStart, blocks.count < Self.maximumBlocks {
            blocks.append(MainText.Block(range: Int32(blockStart)..<Int32(end), linkBytes: Int32(min(blockLinkBytes, end - blockStart)),
                                         node: current, commas: Int32(min(blockCommas, end - blockStart)),
                                         timeBytes: Int32(min(blockTimeBytes, end - blockStart))))
        } else {
            end = blockStart
        }
        count = end
        // One space between blocks in the buffer, so a block's range never runs into the next.
        if end > 0, storage[end - 1] != 0x20, !full {
            reserve(1)
            storage[count] = 0x20
            count += 1
        }
        blockStart = count
        blockLinkBytes = 0
        blockTimeBytes = 0
        blockCommas = 0
        lastWasSpace = true
    }

    /// Everything collected, once the parse is over.
    func finish() -> MainText {
        flush()
        return MainText(text: Array(UnsafeBufferPointer(start: storage, count: count)), blocks: blocks, nodes: nodes)
    }
}
