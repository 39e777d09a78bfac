import TextUtilities
import JSON

/// The part of a page's element tree that microdata needs: only elements carrying
/// `itemscope`, `itemprop` or `id`, in document order, each knowing where its subtree
/// ends. That is enough to run the HTML microdata algorithm (properties of an item are
/// the `itemprop` elements below it, not crossing a nested `itemscope`, plus those under
/// the elements its `itemref` names) without a DOM.
struct MicrodataSkeleton {
    struct Node {
        var tag: HTMLTag
        var itemprop: [String]
        var itemscope: Bool
        var itemtype: [String]
        var itemid: String?
        var itemref: [String]
        var id: String?
        /// The value attribute for elements whose value is not their text (HTML's
        /// per-element rules: `content`, `src`, `href`, `data`, `value`, `datetime`).
        var attributeValue: String?
        var text: String?
        /// One past the last node inside this element.
        var end: Int32
        var order: Int
    }

    static let maximumNodes = 50_000
    static let maximumItemDepth = 32

    private(set) var nodes: [Node] = []
    private(set) var droppedNodes = 0
    var hasItems = false

    /// Records an element; returns its index, or -1 when the node budget is spent.
    mutating func open(
        tag: HTMLTag, itemprop: UnsafePointer<UInt8>?, itemscope: Bool, itemtype: UnsafePointer<UInt8>?,
        itemid: UnsafePointer<UInt8>?, itemref: UnsafePointer<UInt8>?, id: UnsafePointer<UInt8>?,
        attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, order: Int
    ) -> Int32 {
        guard nodes.count < Self.maximumNodes else {
            droppedNodes += 1
            return -1
        }
        if itemscope { hasItems = true }
        let props = itemprop.map { Self.tokens(String(cString: $0)) } ?? []
        var attributeValue: String?
        if !props.isEmpty, let attribute = tag.microdataValueAttribute {
            attributeValue = HTMLEventCollector.attribute(attributes, attribute)
        }
        nodes.append(Node(
            tag: tag, itemprop: props, itemscope: itemscope, itemtype: itemtype.map { Self.tokens(String(cString: $0)) } ?? [],
            itemid: itemid.map { String(cString: $0).trimmingASCIIWhitespace() },
            itemref: itemref.map { Self.tokens(String(cString: $0)) } ?? [],
            id: id.map { String(cString: $0) }, attributeValue: attributeValue, text: nil, end: -1, order: order))
        return Int32(nodes.count - 1)
    }

    /// True when the node's value is its text content, which must then be captured.
    func needsText(_ index: Int32) -> Bool {
        guard index >= 0 else { return false }
        let node = nodes[Int(index)]
        return !node.itemprop.isEmpty && !node.itemscope && node.attributeValue == nil
    }

    mutating func setText(_ index: Int32, _ text: String) {
        guard index >= 0 else { return }
        nodes[Int(index)].text = text
    }

    mutating func close(_ index: Int32) {
        guard index >= 0 else { return }
        nodes[Int(index)].end = Int32(nodes.count)
    }

    /// Closes elements left open when parsing stopped early.
    mutating func closeAll() {
        for index in nodes.indices where nodes[index].end < 0 { nodes[index].end = Int32(nodes.count) }
    }

    private static func tokens(_ value: String) -> [String] {
        value.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\u{0C}" }).map(String.init)
    }

    // MARK: building items

    /// The page's top-level items (`itemscope` without `itemprop`) as JSON-LD-shaped objects,
    /// with their document order.
    func items(resolveURL: @escaping (String) -> String?) -> (items: [(JSONObject, order: Int)], warnings: [ExtractionWarning]) {
        guard hasItems else { return ([], []) }
        var builder = Builder(nodes: nodes, resolveURL: resolveURL)
        var items: [(JSONObject, order: Int)] = []
        for index in nodes.indices where nodes[index].itemscope && nodes[index].itemprop.isEmpty {
            items.append((builder.item(at: index, depth: 0, visiting: []), nodes[index].order))
        }
        if droppedNodes > 0 {
            builder.warnings.append(ExtractionWarning(.limitReached, "microdata: \(droppedNodes) elements past the \(Self.maximumNodes)-element limit were ignored"))
        }
        return (items, builder.warnings)
    }

    private struct Builder {
        let nodes: [Node]
        let resolveURL: (String) -> String?
        var warnings: [ExtractionWarning] = []
        private var idIndex: [String: Int] = [:]

        init(nodes: [Node], resolveURL: @escaping (String) -> String?) {
            self.nodes = nodes
            self.resolveURL = resolveURL
            for (index, node) in nodes.enumerated() {
                if let id = node.id, idIndex[id] == nil { idIndex[id] = index }
            }
        }

        mutating func item(at index: Int, depth: Int, visiting: Set<Int>) -> JSONObject {
            let node = nodes[index]
            var object = JSONObject()
            if !node.itemtype.isEmpty {
                object.append("@type", node.itemtype.count == 1 ? .string(node.itemtype[0]) : .array(node.itemtype.map(JSONValue.string)))
            }
            if let itemid = node.itemid { object.append("@id", .string(itemid)) }
            guard depth < MicrodataSkeleton.maximumItemDepth else {
                warnings.append(ExtractionWarning(.microdata, "microdata items nested deeper than \(MicrodataSkeleton.maximumItemDepth) levels were cut"))
                return object
            }
            let visiting = visiting.union([index])
            var properties: [(String, JSONValue)] = []
            // An element reached both as a descendant and through itemref counts once.
            var seen = Set<Int>()
            collect(from: index + 1, to: Int(max(node.end, Int32(index + 1))), into: &properties, seen: &seen, depth: depth, visiting: visiting)
            for reference in node.itemref {
                guard let target = idIndex[reference] else {
                    warnings.append(ExtractionWarning(.microdata, "itemref '\(reference)' names no element"))
                    continue
                }
                guard !visiting.contains(target) else {
                    warnings.append(ExtractionWarning(.microdata, "itemref '\(reference)' makes a cycle"))
                    continue
                }
                // The referenced element itself may be a property; its subtree is searched
                // unless it is an item of its own.
                addProperty(of: target, into: &properties, seen: &seen, depth: depth, visiting: visiting)
                if !nodes[target].itemscope {
                    collect(from: target + 1, to: Int(nodes[target].end), into: &properties, seen: &seen, depth: depth, visiting: visiting)
                }
            }
            // One member per property name, in first-seen order; repeated names become arrays.
            var order: [String] = []
            var grouped: [String: [JSONValue]] = [:]
            for (name, value) in properties {
                if grouped[name] == nil { order.append(name) }
                grouped[name, default: []].append(value)
            }
            for name in order {
                let values = grouped[name]!
                object.append(name, values.count == 1 ? values[0] : .array(values))
            }
            return object
        }

        private mutating func collect(
            from start: Int, to end: Int, into properties: inout [(String, JSONValue)], seen: inout Set<Int>, depth: Int, visiting: Set<Int>
        ) {
            var k = start
            while k < end, k < nodes.count {
                addProperty(of: k, into: &properties, seen: &seen, depth: depth, visiting: visiting)
                // A nested item's own properties are not ours.
                k = nodes[k].itemscope ? max(Int(nodes[k].end), k + 1) : k + 1
            }
        }

        private mutating func addProperty(
            of k: Int, into properties: inout [(String, JSONValue)], seen: inout Set<Int>, depth: Int, visiting: Set<Int>
        ) {
            let node = nodes[k]
            guard !node.itemprop.isEmpty, seen.insert(k).inserted else { return }
            let value: JSONValue
            if node.itemscope {
                guard !visiting.contains(k) else { return }
                value = .object(item(at: k, depth: depth + 1, visiting: visiting))
            } else if let attribute = node.attributeValue {
                let trimmed = attribute.trimmingASCIIWhitespace()
                value = .string(node.tag.microdataValueIsURL ? (resolveURL(trimmed) ?? trimmed) : trimmed)
            } else {
                value = .string(node.text ?? "")
            }
            for name in node.itemprop { properties.append((name, value)) }
        }
    }
}
