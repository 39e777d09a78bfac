import JSON

/// How the main text is chosen: block scores from text density, link density and hints,
/// the best subtree widened to its siblings, then the edges trimmed (see ``MainText``).
extension MainText {
    /// Each block's verdict, in document order.
    static func decide(text: [UInt8], blocks: [Block], nodes: [Node]) -> [Verdict] {
        guard !blocks.isEmpty else { return [] }
        var scores = [Double](repeating: 0, count: nodes.count)
        var textBytes = [Int](repeating: 0, count: nodes.count)
        var linkBytes = [Int](repeating: 0, count: nodes.count)
        for block in blocks {
            var node = block.node
            var depth = 0
            while node >= 0, depth < Self.maximumAncestors {
                textBytes[Int(node)] += block.bytes
                linkBytes[Int(node)] += Int(block.linkBytes)
                node = nodes[Int(node)].parent
                depth += 1
            }
        }
        // A thread whose posts are all marked as comments (a forum's) has no other text: its
        // comments are then the content, not the section under an article.
        var negative = inheritedNegative(nodes, textBytes: textBytes, linkBytes: linkBytes, commentsAreContent: false)
        let discussion = isDiscussion(blocks: blocks, nodes: nodes, boilerplate: negative)
        if discussion { negative = inheritedNegative(nodes, textBytes: textBytes, linkBytes: linkBytes, commentsAreContent: true) }
        for block in blocks {
            // Boilerplate is not scored at all, as Readability drops unlikely candidates first.
            guard block.bytes >= 25, block.linkDensity < 0.5, !negative[Int(block.node)] else { continue }
            let score = 1 + Double(block.commas) + min(3, Double(block.bytes) / 100)
            // The block's own node is the paragraph; its parent the container.
            var ancestor = nodes[Int(block.node)].tag.isParagraphLike ? nodes[Int(block.node)].parent : block.node
            for level in 0..<3 {
                guard ancestor >= 0 else { break }
                scores[Int(ancestor)] += score / Double(level == 0 ? 1 : level == 1 ? 2 : 3)
                ancestor = nodes[Int(ancestor)].parent
            }
        }
        var final = [Double](repeating: -.infinity, count: nodes.count)
        for index in nodes.indices where scores[index] > 0 && !negative[index] {
            let density = textBytes[index] > 0 ? Double(linkBytes[index]) / Double(textBytes[index]) : 0
            let hint = discussion && nodes[index].hint == .comments ? 0 : nodes[index].hint.weight
            final[index] = (scores[index] + hint + nodes[index].tag.hintWeight) * (1 - density)
        }
        var content = Set<Int32>()
        // The elements marked as the article's body, with their siblings so marked: some
        // sites mark each paragraph (`<p itemprop="articleBody">`); cards of other posts each
        // mark their own excerpt, apart.
        let bodies = Dictionary(grouping: nodes.indices.filter { nodes[$0].hint == .articleBody }) { nodes[$0].parent }.values
            .max { $0.reduce(0) { $0 + textBytes[$1] } < $1.reduce(0) { $0 + textBytes[$1] } } ?? []
        if bodies.reduce(0, { $0 + textBytes[$1] }) >= 250 {
            content.formUnion(bodies.map { Int32($0) })
        } else if var best = final.indices.max(by: { final[$0] < final[$1] }), final[best] > -.infinity {
            best = widened(best, final: final, nodes: nodes, negative: negative)
            // A node that says it is the content, holding prose, beats a slightly better
            // scoring one that does not.
            let declared = final.indices.filter { index in
                let isArticle = nodes[index].hint == .positive || nodes[index].tag == .article || nodes[index].tag == .main
                let density = textBytes[index] > 0 ? Double(linkBytes[index]) / Double(textBytes[index]) : 1
                return isArticle && final[index] > -.infinity && density < 0.3 && textBytes[index] >= 500
            }
            if let candidate = declared.max(by: { final[$0] < final[$1] }), final[candidate] >= 0.5 * final[best] { best = candidate }
            // Up to the article that holds it (its headline, its lead, its other parts),
            // when that says it is one and is mostly prose.
            var ancestor = nodes[best].parent
            var level = 0
            while ancestor > 0, level < 6 {
                let index = Int(ancestor)
                guard !negative[index] else { break }
                let density = textBytes[index] > 0 ? Double(linkBytes[index]) / Double(textBytes[index]) : 1
                let isArticle = nodes[index].hint == .positive || nodes[index].tag == .article || nodes[index].tag == .main
                if isArticle, density < 0.35 { best = index }
                ancestor = nodes[index].parent
                level += 1
            }
            content.insert(Int32(best))
            let parent = nodes[best].parent
            let threshold = max(10, final[best] * 0.2)
            // An article among sibling articles — a thread's posts, a page of entries — is
            // read with the others that are mostly prose.
            let isOneOfArticles = nodes[best].tag == .article
            for sibling in nodes.indices where sibling != best && nodes[sibling].parent == parent {
                let density = textBytes[sibling] > 0 ? Double(linkBytes[sibling]) / Double(textBytes[sibling]) : 1
                let prose = nodes[sibling].tag.isParagraphLike && textBytes[sibling] >= 80 && density < 0.25
                let article = isOneOfArticles && nodes[sibling].tag == .article && textBytes[sibling] >= 25 && density < 0.35
                if final[sibling] >= threshold || prose || article, !negative[sibling] { content.insert(Int32(sibling)) }
            }
        }
        var verdicts: [Verdict] = []
        verdicts.reserveCapacity(blocks.count)
        var kept = 0
        let contentBytes = content.reduce(0) { $0 + textBytes[Int($1)] }
        // Content that is itself mostly links (a link blog's post, a list of sources) keeps them.
        let contentLinks = content.reduce(0) { $0 + linkBytes[Int($1)] }
        let linkList = contentBytes > 0 && contentLinks * 2 > contentBytes
        // Prose the root left out but that comes before the content's end — a landing page's
        // introduction in another section, a lead set apart from the body — is the page's; what
        // follows the content is mostly the site's (an author's bio, an "about us" blurb).
        let inside = blocks.map { isInside($0.node, content, nodes) }
        let contentEnd = inside.lastIndex(of: true) ?? -1
        for (position, block) in blocks.enumerated() {
            let verdict: Verdict
            if !inside[position] {
                let strayProse = position < contentEnd && block.bytes >= Self.strayProseBytes && block.linkDensity < 0.1 && !negative[Int(block.node)]
                verdict = strayProse ? .content : .outsideContent
            } else if negative[Int(block.node)] && !isInsideNegativeAbove(content, block.node, negative, nodes)
                || isInSmallNegativePart(block.node, content, nodes, textBytes: textBytes, linkBytes: linkBytes, contentBytes: contentBytes)
            {
                verdict = .boilerplateHint
            } else if block.linkDensity > 0.5, !linkList {
                verdict = .links
            } else if isInCaption(block.node, nodes) {
                verdict = .caption
            } else {
                verdict = .content
            }
            if verdict == .content { kept += block.bytes }
            verdicts.append(verdict)
        }
        dropOrphans(&verdicts, blocks: blocks, nodes: nodes, text: text)
        trimEdges(&verdicts, blocks: blocks, nodes: nodes, text: text)
        markDatelines(&verdicts, blocks: blocks)
        // The page's headline, when it stands just before the content.
        if let first = verdicts.firstIndex(of: .content),
            let headline = blocks[..<first].lastIndex(where: { nodes[Int($0.node)].tag == .headline }),
            first - headline <= 6, !negative[Int(blocks[headline].node)], blocks[headline].linkDensity <= 0.5
        {
            verdicts[headline] = .content
        }
        guard kept < 250 else { return verdicts }
        // Too little: whatever reads as prose anywhere on the page; on a page with little
        // prose, every line outside its menus and footers.
        let prose: [Verdict] = blocks.map { block in
            if negative[Int(block.node)] { return .boilerplateHint }
            if block.linkDensity >= 0.33 { return .links }
            return block.bytes >= 70 || (block.bytes > 0 && nodes[Int(block.node)].tag.isHeading) ? .content : .short
        }
        let proseBytes = zip(blocks, prose).reduce(0) { $0 + ($1.1 == .content ? $1.0.bytes : 0) }
        guard proseBytes < 250 else { return prose }
        return zip(blocks, prose).map { block, verdict in verdict == .short ? .content : verdict }
    }

    /// The best node, or an ancestor when the content is spread over several containers
    /// (a page builder's sections, a post split into parts), as Readability unifies them:
    /// the nearest ancestor holding three of the other top five candidates that score at
    /// least three quarters of the best; else the first ancestor, within a few steps, whose
    /// score rises above the one below it (while none falls under a third of the best).
    private static func widened(_ best: Int, final: [Double], nodes: [Node], negative: [Bool]) -> Int {
        let top = final.indices.filter { $0 != best && final[$0] >= 0.5 * final[best] }
            .sorted { final[$0] > final[$1] }.prefix(5)
        func ancestors(_ node: Int) -> [Int] {
            var list: [Int] = []
            var current = nodes[node].parent
            while current > 0, list.count < maximumAncestors {
                list.append(Int(current))
                current = nodes[Int(current)].parent
            }
            return list
        }
        if top.count >= 3 {
            let lists = top.map { Set(ancestors($0)) }
            for ancestor in ancestors(best) {
                guard !negative[ancestor] else { break }
                if lists.filter({ $0.contains(ancestor) }).count >= 3 { return ancestor }
            }
        }
        var last = final[best]
        for ancestor in ancestors(best).prefix(4) {
            guard !negative[ancestor], final[ancestor] >= final[best] / 3 else { break }
            if final[ancestor] > last { return ancestor }
            last = final[ancestor]
        }
        return best
    }

    /// The content's first and last blocks, while they read as a site's own notices rather
    /// than the text: short lines ("Related stories", "Share this", a date), or blocks that
    /// speak of subscribing, copyright or advertising. Articles end with such; a block
    /// inside the text is judged by its neighbours, as jusText does, and stays.
    private static func trimEdges(_ verdicts: inout [Verdict], blocks: [Block], nodes: [Node], text: [UInt8]) {
        /// A notice by its words is short: 250 bytes at the end (a subscription plea, a
        /// copyright line), 100 at the start, where the lead paragraph may well say "Werbung".
        func isNotice(_ index: Int, wordsUpTo limit: Int) -> Bool {
            let block = blocks[index]
            if block.bytes < 40 { return true }
            guard block.bytes < limit else { return false }
            return Self.noticeWords.contains { Self.contains(text[Int(block.range.lowerBound)..<Int(block.range.upperBound)], $0, atWordStart: true) }
        }
        let content = verdicts.indices.filter { verdicts[$0] == .content }
        for index in content.reversed() {
            guard isNotice(index, wordsUpTo: 250) else { break }
            verdicts[index] = .short
        }
        for index in content {
            guard verdicts[index] == .content, isNotice(index, wordsUpTo: 100), nodes[Int(blocks[index].node)].tag != .headline else { break }
            verdicts[index] = .short
        }
    }

    /// Inside the content: a heading whose next block is not content introduces something
    /// else ("Related stories", "Schon gelesen?"); a short line of credit ("Foto: …", "© …")
    /// belongs to a picture.
    private static func dropOrphans(_ verdicts: inout [Verdict], blocks: [Block], nodes: [Node], text: [UInt8]) {
        for index in blocks.indices where verdicts[index] == .content {
            let block = blocks[index]
            let tag = nodes[Int(block.node)].tag
            if tag == .heading, block.bytes < 100, index + 1 < blocks.count, verdicts[index + 1] != .content {
                verdicts[index] = .short
            } else if block.bytes < 100,
                Self.creditWords.contains(where: { Self.contains(text[Int(block.range.lowerBound)..<Int(block.range.upperBound)], $0) })
            {
                verdicts[index] = .caption
            }
        }
    }

    /// A short line (under ``datelineBytes``) a third or more of which is the text of `time`
    /// elements gives the date a piece was published or updated, often with its author
    /// ("By Ann Lee · March 13, 2015"): metadata the item keeps apart, not the text.
    /// trafilatura drops every `time` element; inside a sentence one is a small share of it.
    private static func markDatelines(_ verdicts: inout [Verdict], blocks: [Block]) {
        for index in blocks.indices where verdicts[index] == .content {
            let block = blocks[index]
            if block.bytes < Self.datelineBytes, block.timeBytes > 0, 3 * Int(block.timeBytes) >= block.bytes { verdicts[index] = .dateline }
        }
    }

    static let datelineBytes = 100

    static let creditWords: [[UInt8]] = ["©", "foto:", "photo:", "bild:", "quelle:", "source:", "credit:", "image:", "fotos:"].map { Array($0.utf8) }

    private static func isInCaption(_ node: Int32, _ nodes: [Node]) -> Bool {
        var current = node
        var depth = 0
        while current >= 0, depth < 8 {
            if nodes[Int(current)].tag == .caption { return true }
            current = nodes[Int(current)].parent
            depth += 1
        }
        return false
    }

    /// Words of a site's notices, in the languages seen most (matched in lower case).
    static let noticeWords: [[UInt8]] = [
        "subscri", "newsletter", "copyright", "©", "all rights reserved", "advertis", "sign up", "follow us", "share this",
        "read more", "related", "abonn", "suscr", "werbung", "anzeige", "teilen", "compartir", "partager", "publicidad",
        "derechos reservados", "tous droits", "alle rechte", "cookie", "follow", "download", "telegram", "whatsapp", "youtube",
        "donat", "spende", "member", "miembro", "únete", "apoya", "sociable", "comment", "kommentar",
    ].map { Array($0.utf8) }

    /// Whether `word` (lower case) occurs in `bytes`, ASCII letters compared without case;
    /// `atWordStart`: only where no letter or hyphen comes just before (`Werbung`, not
    /// `Bewerbung`; `related`, not `drug-related`).
    static func contains(_ bytes: ArraySlice<UInt8>, _ word: [UInt8], atWordStart: Bool = false) -> Bool {
        guard word.count <= bytes.count, let first = word.first else { return false }
        var start = bytes.startIndex
        while start + word.count <= bytes.endIndex {
            let byte = bytes[start]
            // Before: a letter (any non-ASCII byte counts as one) or a hyphen ends the chance.
            let previous = start > bytes.startIndex ? bytes[start - 1] | 0x20 : 0x20
            let boundary = !atWordStart || !((previous >= 0x61 && previous <= 0x7A) || previous == 0x2D || previous >= 0x80)
            if boundary, (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) == first {
                var matches = true
                for offset in 1..<word.count {
                    let next = bytes[start + offset]
                    if (next >= 0x41 && next <= 0x5A ? next | 0x20 : next) != word[offset] {
                        matches = false
                        break
                    }
                }
                if matches { return true }
            }
            start += 1
        }
        return false
    }

    /// Ancestors read at most when adding a block's text up the tree.
    static let maximumAncestors = 64

    /// Whether each node is, or sits inside, one whose hint or tag says boilerplate.
    ///
    /// A sign (the tags `nav`, `header`, `footer`, `aside`, `form`, class words such as `menu`,
    /// `sidebar`, `share`, `widget`) counts only for a node holding less than half the page's
    /// text: pages wrap everything in a `form`, Blogger in a `div class="widget Blog"`, themes
    /// in a `content-sidebar-wrap`. Comments may hold more than the article: up to four fifths.
    private static func inheritedNegative(_ nodes: [Node], textBytes: [Int], linkBytes: [Int], commentsAreContent: Bool) -> [Bool] {
        var negative = [Bool](repeating: false, count: nodes.count)
        // Whether a node sits in an article or main element: its header and footer are the
        // article's own (HTML's sectioning rules), not the site's.
        var inArticle = [Bool](repeating: false, count: nodes.count)
        let total = textBytes.first ?? 0
        // Teasers side by side (children of one element) list other pages — unless one holds
        // most of their text: then they are one article's parts (its date line, headline and
        // text, each classed `teaser-…`), not a list of like items.
        var teasersByParent: [Int32: (count: Int, bytes: Int)] = [:]
        for (index, node) in nodes.enumerated() where node.hint == .teaser {
            teasersByParent[node.parent, default: (0, 0)].count += 1
            teasersByParent[node.parent, default: (0, 0)].bytes += textBytes[index]
        }
        for index in nodes.indices {
            let parent = nodes[index].parent
            let hint = nodes[index].hint
            let tag = nodes[index].tag
            inArticle[index] = parent >= 0 && (inArticle[Int(parent)] || nodes[Int(parent)].tag == .article || nodes[Int(parent)].tag == .main)
            let small = textBytes[index] * 2 < total
            let structural: Bool = switch tag {
            case .navigation, .aside, .form, .noscript: small
            case .header, .footer: small && !inArticle[index]
            default: false
            }
            // A teaser that links, or one of a list, is another page's; one alone without
            // links is the article's own lead.
            let siblings = teasersByParent[parent, default: (0, 0)]
            let listedTeaser = hint == .teaser
                && (linkBytes[index] * 5 >= textBytes[index] || siblings.count >= 2 && textBytes[index] * 2 <= siblings.bytes)
            let own = structural || hint == .landmark && small || hint == .comments && !commentsAreContent && textBytes[index] * 5 < total * 4
                || listedTeaser
            negative[index] = own || (parent >= 0 && negative[Int(parent)])
            // Positive hints inside boilerplate (an `article` in a sidebar) stay boilerplate;
            // an `articleBody` wins outright.
            if nodes[index].hint == .articleBody { negative[index] = false }
        }
        return negative
    }

    /// Whether, between `node` and the content root above it, a node's class or id says
    /// boilerplate while it holds less than a third of the content (a share bar, a "related"
    /// box inside the article — not a wrapper whose theme calls it `sticky-sidebar`) and does
    /// not read as prose (``proseBytes`` or more with under a tenth in links: share bars,
    /// "related" lists and bios are short or mostly links).
    private static func isInSmallNegativePart(_ node: Int32, _ roots: Set<Int32>, _ nodes: [Node], textBytes: [Int], linkBytes: [Int], contentBytes: Int) -> Bool {
        var current = node
        var depth = 0
        while current >= 0, depth < Self.maximumAncestors, !roots.contains(current) {
            // A part that reads as prose is text whatever its class or id says (a section's
            // id is often its heading's slug: `sharing-with-a-single-developer`).
            let prose = textBytes[Int(current)] >= Self.proseBytes && linkBytes[Int(current)] * 10 < textBytes[Int(current)]
            if nodes[Int(current)].hint == .negative, textBytes[Int(current)] * 3 < contentBytes, !prose { return true }
            current = nodes[Int(current)].parent
            depth += 1
        }
        return false
    }

    /// Whether the page's prose is all in comment sections: less than ``discussionProse``
    /// bytes of paragraphs (70 bytes or more, few links) outside them and outside the page's
    /// furniture (`boilerplate`), and more inside.
    private static func isDiscussion(blocks: [Block], nodes: [Node], boilerplate: [Bool]) -> Bool {
        var inComments = [Bool](repeating: false, count: nodes.count)
        for index in nodes.indices {
            let parent = nodes[index].parent
            inComments[index] = nodes[index].hint == .comments || (parent >= 0 && inComments[Int(parent)])
        }
        var outside = 0
        var inside = 0
        for block in blocks where block.bytes >= 70 && block.linkDensity < 0.33 {
            if inComments[Int(block.node)] { inside += block.bytes } else if !boilerplate[Int(block.node)] { outside += block.bytes }
        }
        return outside < discussionProse && inside > outside
    }

    static let discussionProse = 400

    /// The least text a part under a boilerplate class holds to be read as prose.
    static let proseBytes = 1000

    /// The least a paragraph outside the content root holds to be read as the page's prose.
    static let strayProseBytes = 150

    /// Whether `node` is one of `roots` or below one.
    private static func isInside(_ node: Int32, _ roots: Set<Int32>, _ nodes: [Node]) -> Bool {
        var current = node
        var depth = 0
        while current >= 0, depth < Self.maximumAncestors {
            if roots.contains(current) { return true }
            current = nodes[Int(current)].parent
            depth += 1
        }
        return false
    }

    /// Whether the content root above `node` is itself boilerplate (then what is inside it is
    /// not dropped for that: the content was chosen knowing it).
    private static func isInsideNegativeAbove(_ roots: Set<Int32>, _ node: Int32, _ negative: [Bool], _ nodes: [Node]) -> Bool {
        var current = node
        var depth = 0
        while current >= 0, depth < Self.maximumAncestors {
            if roots.contains(current) { return negative[Int(current)] }
            current = nodes[Int(current)].parent
            depth += 1
        }
        return false
    }
}
