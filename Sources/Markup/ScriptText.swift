/// The text of a JSON-LD `<script>` as a JSON parser should see it. HTML comments are raw
/// text inside a script element, and pages put them there (`<!-- a note -->` before the
/// object, or the old `<!--` … `-->` wrapper): outside JSON strings each comment becomes
/// spaces, keeping every line and column where it was for error positions.
enum ScriptText {
    static func withoutHTMLComments(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.contains(UInt8(ascii: "<")) || bytes.contains(UInt8(ascii: "-")) else { return bytes }
        var out = bytes
        var i = 0
        var inString = false
        func blank(_ range: Range<Int>) {
            for k in range where out[k] != 0x0A && out[k] != 0x0D { out[k] = 0x20 }
        }
        func starts(_ marker: [UInt8], at k: Int) -> Bool {
            k + marker.count <= bytes.count && bytes[k..<(k + marker.count)].elementsEqual(marker)
        }
        let open = Array("<!--".utf8), close = Array("-->".utf8)
        while i < bytes.count {
            let byte = bytes[i]
            if inString {
                if byte == UInt8(ascii: "\\") { i += 2; continue }
                if byte == UInt8(ascii: "\"") { inString = false }
                i += 1
            } else if byte == UInt8(ascii: "\"") {
                inString = true
                i += 1
            } else if starts(open, at: i) {
                // A note runs to its `-->`. A `<!--` whose "comment" holds the JSON itself
                // (the old wrapper, or one never closed) is only the marker.
                var end = i + open.count
                while end < bytes.count, !starts(close, at: end) { end += 1 }
                let body = bytes[(i + open.count)..<end]
                let wraps = end == bytes.count || body.contains(UInt8(ascii: "{")) || body.contains(UInt8(ascii: "["))
                let stop = wraps ? i + open.count : end + close.count
                blank(i..<stop)
                i = stop
            } else if starts(close, at: i) {
                blank(i..<(i + close.count))
                i += close.count
            } else {
                i += 1
            }
        }
        return out
    }
}
