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

    private(set) var text: [UInt8] = []
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
        text.reserveCapacity(16 * 1024)
    }

    func start(_ tag: BlockTag, isLink: Bool, attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?) {
        if isLink { linkDepth += 1 }
        let hint = tag == .inline && !isLink ? MainText.Hint.none : MainText.Hint(attributes)
        let hides = tag == .hidden || hint == .hidden
        if hides { hiddenDepth += 1 }
        var node: Int32 = -1
        if tag.startsBlock {
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
        if node >= 0 || hides { flush() }
        if hides { hiddenDepth -= 1 }
        if node >= 0 { current = nodes[Int(node)].parent }
    }

    /// A void element (`br`, `hr`, `img`…) that libxml2 opens and closes at once.
    func lineBreak() { flush() }

    func characters(_ buffer: UnsafeBufferPointer<UInt8>) {
        guard hiddenDepth == 0, !full else { return }
        var count = text.count
        for byte in buffer {
            if byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D || byte == 0x0C {
                if !lastWasSpace, count > blockStart {
                    text.append(0x20)
                    count += 1
                    if linkDepth > 0 { blockLinkBytes += 1 }
                    lastWasSpace = true
                }
                continue
            }
            if count >= Self.maximumTextBytes, byte & 0xC0 != 0x80 {
                full = true
                break
            }
            text.append(byte)
            count += 1
            if linkDepth > 0 { blockLinkBytes += 1 }
            lastWasSpace = false
        }
    }

    /// Ends the block being collected, if it has any text.
    func flush() {
        var end = text.count
        if end > blockStart, text[end - 1] == 0x20 {
            text.removeLast()
            end -= 1
        }
        if end > blockStart, blocks.count < Self.maximumBlocks {
            var commas = 0
            for byte in text[blockStart..<end] where byte == UInt8(ascii: ",") { commas += 1 }
            blocks.append(MainText.Block(range: Int32(blockStart)..<Int32(end), linkBytes: Int32(min(blockLinkBytes, end - blockStart)),
                                         node: current, commas: Int32(commas)))
        } else if end > blockStart {
            text.removeSubrange(blockStart..<end)
            end = blockStart
        }
        // One space between blocks in the log, so a block's range never runs into the next.
        if end > 0, text.last != 0x20, !full {
            text.append(0x20)
        }
        blockStart = text.count
        blockLinkBytes = 0
        lastWasSpace = true
    }

    /// Everything collected, once the parse is over.
    func finish() -> MainText {
        flush()
        return MainText(text: text, blocks: blocks, nodes: nodes)
    }
}
