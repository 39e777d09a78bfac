/// The elements extraction treats specially, recognised from libxml2's lower-cased
/// element name without building a String.
enum HTMLTag: UInt8 {
    case other
    case a, area, base, body, head, html, link, meta, script, style, noscript, template, title, svg, math
    case h1, img, audio, embed, iframe, source, track, video, object, data, meter, time
    /// A text-level element: no word break before or after it.
    case inline
    /// Elements whose content is not visible text.
    case select, textarea

    /// True when the element starts and ends a run of words.
    var breaksWords: Bool {
        switch self {
        case .a, .inline, .data, .time, .meter: return false
        default: return true
        }
    }

    /// Elements whose microdata value is an attribute, not their text.
    var microdataValueAttribute: StaticString? {
        switch self {
        case .meta: return "content"
        case .audio, .embed, .iframe, .img, .source, .track, .video: return "src"
        case .a, .area, .link: return "href"
        case .object: return "data"
        case .data, .meter: return "value"
        case .time: return "datetime"
        default: return nil
        }
    }

    /// True when the microdata value attribute holds a URL to resolve.
    var microdataValueIsURL: Bool {
        switch self {
        case .audio, .embed, .iframe, .img, .source, .track, .video, .a, .area, .link, .object: return true
        default: return false
        }
    }

    init(name p: UnsafePointer<UInt8>) {
        @inline(__always) func at(_ i: Int) -> UInt8 { p[i] }
        let name = TagName(p, upTo: 10)
        let length = name.length
        @inline(__always) func eq(_ s: StaticString) -> Bool { name.is(s) }
        switch length {
        case 1:
            switch at(0) {
            case UInt8(ascii: "a"): self = .a
            case UInt8(ascii: "b"), UInt8(ascii: "i"), UInt8(ascii: "u"), UInt8(ascii: "s"), UInt8(ascii: "q"): self = .inline
            default: self = .other
            }
        case 2:
            if eq("h1") { self = .h1 } else if eq("em") { self = .inline } else { self = .other }
        case 3:
            if eq("img") { self = .img } else if eq("svg") { self = .svg } else if eq("sub") || eq("sup") || eq("kbd") || eq("var")
                || eq("dfn") || eq("bdi") || eq("bdo") || eq("del") || eq("ins") || eq("wbr") || eq("big") || eq("tt")
            { self = .inline } else { self = .other }
        case 4:
            if eq("meta") { self = .meta } else if eq("link") { self = .link } else if eq("span") { self = .inline }
            else if eq("area") { self = .area } else if eq("base") { self = .base } else if eq("body") { self = .body }
            else if eq("head") { self = .head } else if eq("html") { self = .html } else if eq("time") { self = .time }
            else if eq("data") { self = .data } else if eq("math") { self = .math }
            else if eq("font") || eq("code") || eq("abbr") || eq("mark") || eq("cite") || eq("samp") || eq("ruby") { self = .inline }
            else { self = .other }
        case 5:
            if eq("title") { self = .title } else if eq("style") { self = .style } else if eq("video") { self = .video }
            else if eq("audio") { self = .audio } else if eq("embed") { self = .embed } else if eq("track") { self = .track }
            else if eq("meter") { self = .meter } else if eq("small") || eq("label") { self = .inline } else { self = .other }
        case 6:
            if eq("script") { self = .script } else if eq("source") { self = .source } else if eq("iframe") { self = .iframe }
            else if eq("object") { self = .object } else if eq("select") { self = .select } else if eq("strong") { self = .inline }
            else { self = .other }
        case 8:
            if eq("noscript") { self = .noscript } else if eq("template") { self = .template } else if eq("textarea") { self = .textarea }
            else { self = .other }
        default:
            self = .other
        }
    }
}

/// An element name as libxml2 reports it (lower case, NUL-terminated), compared with
/// literals without making a String; names longer than `upTo` bytes match none.
struct TagName {
    let bytes: UnsafePointer<UInt8>
    let length: Int

    @inline(__always)
    init(_ bytes: UnsafePointer<UInt8>, upTo maximum: Int) {
        self.bytes = bytes
        var length = 0
        while length < maximum, bytes[length] != 0 { length += 1 }
        self.length = length
    }

    @inline(__always)
    func `is`(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard count == length else { return false }
        let other = literal.utf8Start
        for i in 0..<count where bytes[i] != other[i] { return false }
        return true
    }
}
