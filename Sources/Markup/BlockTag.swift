/// How an element shapes a page's main text (``MainText``): whether it starts a block of
/// its own, hides its text, or says something about what it holds (navigation, an article).
/// Read from libxml2's lower-cased element name without building a String.
enum BlockTag: UInt8 {
    /// Text-level (`span`, `a`, `em`…): its text joins the block around it.
    case inline
    /// A block of text or a container (`p`, `div`, `li`, `td`, `section`…).
    case block
    /// `h1`: the page's own headline, usually.
    case headline
    case heading
    case paragraph
    case listItem
    case cell
    case preformatted
    case quote
    /// `figure`, `figcaption`: a picture and its caption or credit.
    case caption
    /// A line break: ends the block (old pages separate paragraphs with `<br>`).
    case lineBreak
    /// `main`, `article`: a page's own content.
    case main, article
    /// `nav`, `header`, `footer`, `aside`, `form`, `menu`: around the content, not it.
    case navigation, header, footer, aside, form
    /// `noscript`: shown only without script; kept when it holds the page (a libxml2 trap
    /// leaves an unclosed one open to the end of the document).
    case noscript
    /// Text never shown as the page's text: `script`, `style`, `template`, `svg`, ruby
    /// annotations (`rt`, `rp`), form controls, `button`, `option`…
    case hidden
    /// Ruby annotations (`rt`, `rp`, `rtc`): hidden, and the base text around them joins up.
    case annotation

    var startsBlock: Bool { self != .inline && self != .annotation }

    init(name p: UnsafePointer<UInt8>) {
        let name = TagName(p, upTo: 12)
        let length = name.length
        @inline(__always) func eq(_ s: StaticString) -> Bool { name.is(s) }
        switch length {
        case 1:
            switch p[0] {
            case UInt8(ascii: "p"): self = .paragraph
            default: self = .inline
            }
        case 2:
            if p[0] == UInt8(ascii: "h"), p[1] == UInt8(ascii: "1") { self = .headline }
            else if p[0] == UInt8(ascii: "h"), p[1] >= UInt8(ascii: "2"), p[1] <= UInt8(ascii: "6") { self = .heading }
            else if eq("li") || eq("dd") || eq("dt") { self = .listItem }
            else if eq("td") || eq("th") { self = .cell }
            else if eq("br") { self = .lineBreak }
            else if eq("ul") || eq("ol") || eq("dl") || eq("tr") || eq("hr") { self = .block }
            else if eq("rt") || eq("rp") { self = .annotation }
            else { self = .inline }
        case 3:
            if eq("div") || eq("dir") { self = .block }
            else if eq("nav") { self = .navigation }
            else if eq("pre") { self = .preformatted }
            else if eq("rtc") { self = .annotation }
            else if eq("svg") { self = .hidden }
            else { self = .inline }
        case 4:
            if eq("main") { self = .main }
            else if eq("form") { self = .form }
            else if eq("menu") { self = .navigation }
            else if eq("body") || eq("html") { self = .block }
            else if eq("math") { self = .hidden }
            else if eq("head") { self = .block }
            else { self = .inline }
        case 5:
            if eq("aside") { self = .aside }
            else if eq("table") || eq("tbody") || eq("thead") || eq("tfoot") { self = .block }
            else if eq("style") || eq("title") || eq("input") { self = .hidden }
            else { self = .inline }
        case 6:
            if eq("header") { self = .header }
            else if eq("footer") { self = .footer }
            else if eq("figure") { self = .caption }
            else if eq("center") || eq("legend") || eq("dialog") { self = .block }
            else if eq("script") || eq("select") || eq("button") || eq("option") || eq("iframe") || eq("object") || eq("canvas") { self = .hidden }
            else { self = .inline }
        case 7:
            if eq("article") { self = .article }
            else if eq("section") || eq("address") || eq("details") || eq("summary") || eq("caption") { self = .block }
            else { self = .inline }
        case 8:
            if eq("noscript") { self = .noscript }
            else if eq("fieldset") || eq("colgroup") { self = .block }
            else if eq("template") || eq("textarea") || eq("datalist") || eq("optgroup") { self = .hidden }
            else { self = .inline }
        case 10:
            self = eq("blockquote") ? .quote : eq("figcaption") ? .caption : .inline
        default:
            self = .inline
        }
    }
}

extension BlockTag {
    /// Blocks that are a paragraph of a container rather than a container.
    var isParagraphLike: Bool {
        switch self {
        case .paragraph, .headline, .heading, .listItem, .cell, .preformatted, .quote: true
        default: false
        }
    }

    var isHeading: Bool { self == .headline || self == .heading }

    /// Elements around the content by their nature.
    var isBoilerplate: Bool {
        switch self {
        case .navigation, .header, .footer, .aside, .form, .noscript: true
        default: false
        }
    }

    var hintWeight: Double {
        switch self {
        case .article, .main: 25
        default: 0
        }
    }
}
