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

    /// The text of every block, in one buffer allocated by hand: written a byte at a time
    /// from the parser's callbacks, where an Array's checks would cost more than the parse.
    private var storage: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var count = 0
    private(set) var blocks: [MainText.Block] = []
    private(set) var nodes: [MainText.Node] = [MainText.Node(parent: -1, tag: .block, hint: .none)]

    /// Open elements: the node each opened (or -1), and whether it hid its text.
    private var stack: [(node: Int32, hides: Bool)] = []
    private var current: Int32 = 0
    private var hiddenDepth = 0
    private var linkDepth = 0
    private var blockStart = 0
    private var blockLinkBytes = 0
    private var lastWasSpace = true
    private var full = false

    init() {
        capacity = 16 * 1024
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

    func start(_ tag: BlockTag, isLink: Bool, attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?) {
        if isLink { linkDepth += 1 }
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
        stack.append((node, hides))
    }

    func end(isLink: Bool) {
        if isLink, linkDepth > 0 { linkDepth -= 1 }
        guard let (node, hides) = stack.popLast() else { return }
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

    /// Appends text with whitespace runs collapsed. The loop works on locals and writes the
    /// state back once: a class's stored properties touched per byte would each pay a
    /// dynamic exclusivity check.
    func characters(_ buffer: UnsafeBufferPointer<UInt8>) {
        guard hiddenDepth == 0, !full else { return }
        reserve(buffer.count)
        let out = storage
        var count = self.count
        var lastWasSpace = self.lastWasSpace
        let start = blockStart
        let limit = Self.maximumTextBytes
        let before = count
        for byte in buffer {
            if byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D || byte == 0x0C {
                if !lastWasSpace, count > start {
                    out[count] = 0x20
                    count += 1
                    lastWasSpace = true
                }
                continue
            }
            if count >= limit, byte & 0xC0 != 0x80 {
                full = true
                break
            }
            out[count] = byte
            count += 1
            lastWasSpace = false
        }
        if linkDepth > 0 { blockLinkBytes += count - before }
        self.lastWasSpace = lastWasSpace
        self.count = count
    }

    /// Ends the block being collected, if it has any text.
    func flush() {
        var end = count
        if end > blockStart, storage[end - 1] == 0x20 { end -= 1 }
        if end > blockStart, blocks.count < Self.maximumBlocks {
            var commas = 0
            for index in blockStart..<end where storage[index] == UInt8(ascii: ",") { commas += 1 }
            blocks.append(MainText.Block(range: Int32(blockStart)..<Int32(end), linkBytes: Int32(min(blockLinkBytes, end - blockStart)),
                                         node: current, commas: Int32(commas)))
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
        lastWasSpace = true
    }

    /// Everything collected, once the parse is over.
    func finish() -> MainText {
        flush()
        return MainText(text: Array(UnsafeBufferPointer(start: storage, count: count)), blocks: blocks, nodes: nodes)
    }
}
