extension MainText.Hint {
    /// The hint of an element's `class`, `id`, `role`, `itemprop`, `hidden`, `aria-hidden` and
    /// `style` attributes.
    init(_ attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?) {
        self = .none
        guard let attributes else { return }
        var found: HintWords.Found = []
        var budget = 512
        var i = 0
        while let name = attributes[i] {
            let value = attributes[i + 1]
            if HTMLEventCollector.equals(name, "hidden") {
                self = .hidden
                return
            }
            if let value {
                if HTMLEventCollector.equals(name, "class") || HTMLEventCollector.equals(name, "id") {
                    HintWords.shared.scan(value, budget: &budget, into: &found)
                } else if HTMLEventCollector.equals(name, "itemprop") {
                    if Self.contains(value, "articlebody") { self = .articleBody }
                } else if HTMLEventCollector.equals(name, "role") {
                    if Self.contains(value, "main") || Self.contains(value, "article") { if self == .none { self = .positive } }
                    else if ["navigation", "banner", "contentinfo", "complementary", "search", "menu", "dialog", "alert"]
                        .contains(where: { Self.contains(value, $0) }) { self = .landmark }
                } else if HTMLEventCollector.equals(name, "aria-hidden") {
                    if Self.contains(value, "true") {
                        self = .hidden
                        return
                    }
                } else if HTMLEventCollector.equals(name, "style") {
                    if Self.declares(value, "display", "none") || Self.declares(value, "visibility", "hidden") {
                        self = .hidden
                        return
                    }
                }
            }
            i += 2
        }
        guard self == .none || self == .positive || self == .landmark, !found.isEmpty else { return }
        // Comments first; then a class that also says content (`content-sidebar-wrap`) is not
        // boilerplate, as Readability keeps its "maybe a candidate" classes.
        if found.contains(.comments) {
            self = .comments
        } else if found.contains(.teaser), !found.contains(.negative) {
            self = .teaser
        } else if self != .landmark, !found.contains(.positive), found.contains(.negative) {
            self = .negative
        } else if found.contains(.positive) {
            self = .positive
        }
    }

    /// Whether an inline style declares `property: value` (ASCII case and the spaces CSS
    /// allows around the colon ignored): `display:none`, `visibility : hidden`.
    static func declares(_ style: UnsafePointer<UInt8>, _ property: StaticString, _ value: StaticString) -> Bool {
        var length = 0
        while style[length] != 0, length < 4096 { length += 1 }
        let name = UnsafeBufferPointer(start: property.utf8Start, count: property.utf8CodeUnitCount)
        let wanted = UnsafeBufferPointer(start: value.utf8Start, count: value.utf8CodeUnitCount)
        func matches(_ word: UnsafeBufferPointer<UInt8>, at start: Int) -> Bool {
            guard start + word.count <= length else { return false }
            for offset in word.indices where style[start + offset] | 0x20 != word[offset] { return false }
            return true
        }
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D }
        var start = 0
        while start < length {
            // A property name starts the declarations or follows `;` (and spaces).
            if matches(name, at: start) {
                var at = start + name.count
                while at < length, isSpace(style[at]) { at += 1 }
                if at < length, style[at] == UInt8(ascii: ":") {
                    at += 1
                    while at < length, isSpace(style[at]) { at += 1 }
                    if matches(wanted, at: at) {
                        let end = at + wanted.count
                        if end == length || style[end] == UInt8(ascii: ";") || style[end] == UInt8(ascii: "!") || isSpace(style[end]) { return true }
                    }
                }
            }
            while start < length, style[start] != UInt8(ascii: ";") { start += 1 }
            start += 1
            while start < length, isSpace(style[start]) { start += 1 }
        }
        return false
    }

    private static func contains(_ value: UnsafePointer<UInt8>, _ word: StaticString) -> Bool {
        let needle = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        let p = value
        var length = 0
        while p[length] != 0, length < 4096 { length += 1 }
        guard needle.count <= length else { return false }
        for start in 0...(length - needle.count) {
            var matches = true
            for k in 0..<needle.count {
                let byte = p[start + k]
                if (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) != needle[k] {
                    matches = false
                    break
                }
            }
            if matches { return true }
        }
        return false
    }
}
