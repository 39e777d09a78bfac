import ItemModel
import SearchModel

/// A filter's parts as terms of the segments' own postings, as Lucene filters on indexed
/// keyword fields: each item's owner, content type, domain, domain identifier and apps are
/// written beside its words as terms no text can make (a control byte first), so that a
/// filter's first use reads a few posting lists in each segment instead of scanning every
/// row of `items` (seconds at 10,000,000 items).
///
/// The terms say exactly what ``SearchFilter``'s SQL condition asks of a row
/// (``SearchFilter/condition``): a domain is kept reversed, so that "this host or one of its
/// subdomains" is the exact term or those starting with it and a dot; a domain identifier as
/// it is, for "this one or those starting with it and a dot"; an app's platform, and for an
/// app a tap opens (a deep link, or a universal link to the item's web page) each of its
/// identifiers. Values are cut at ``valueBytes`` on both sides (no filter part is longer).
/// Segments written before had none: ``SegmentFile/holdsFilterTerms`` tells them apart, and
/// for those the rows are scanned as before.
enum FilterTerms {
    /// The first byte of every filter term: a control character, which the tokenizer never
    /// puts in a word, so no query word and no completion or spelling range meets one; not
    /// the stems' (``SearchTokenizer/Session/stemMarker``, 0x01), so no stem is read as one.
    static let marker: UInt8 = 0x02
    /// A URL's longest: no stored content type or domain (a web URL's host) is longer, so
    /// their terms hold them whole (facet values are read back from them: ``SegmentFacets``).
    static let valueBytes = SearchableItem.Limits.urlBytes

    enum Kind: UInt8 {
        case owner = 0x6F  // o
        case contentType = 0x74  // t
        case domain = 0x64  // d, reversed
        case domainIdentifier = 0x69  // i
        case platform = 0x61  // a
        case opens = 0x70  // p: platform, 0, identifier
    }

    static func term(_ kind: Kind, _ value: some Collection<UInt8>) -> [UInt8] {
        [marker, kind.rawValue] + value.prefix(valueBytes)
    }

    static func opening(_ platform: AppTarget.Platform, _ identifier: String) -> [UInt8] {
        term(.opens, Array(platform.rawValue.utf8) + [0] + Array(identifier.utf8))
    }

    /// The filter terms of `item`, each once; `domain` is its ``SearchableItem/domain``, parsed
    /// once by the caller, which stores it too.
    static func terms(of item: SearchableItem, domain: String?) -> Set<[UInt8]> {
        var terms: Set<[UInt8]> = [term(.owner, item.key.storedOwner.utf8)]
        if let contentType = item.contentType { terms.insert(term(.contentType, contentType.utf8)) }
        if let domain { terms.insert(term(.domain, domain.utf8.reversed())) }
        if let identifier = item.domainIdentifier { terms.insert(term(.domainIdentifier, identifier.utf8)) }
        for app in item.apps {
            terms.insert(term(.platform, app.platform.rawValue.utf8))
            guard app.deepLink != nil || (app.isUniversalLink && item.webURL != nil) else { continue }
            for identifier in [app.appStoreID, app.bundleID, app.package].compactMap({ $0 }) {
                terms.insert(opening(app.platform, identifier))
            }
        }
        return terms
    }

    /// One part of a filter: a document passes it when it holds one of `exact`, or a term
    /// starting with one of `prefixes`.
    struct Part: Equatable {
        var exact: [[UInt8]]
        var prefixes: [[UInt8]] = []
    }

    /// The parts of `filter` a document must all pass; its circle (``SearchFilter/near``)
    /// is not among them (places are answered by ``PlaceGrid``).
    static func parts(of filter: SearchFilter) -> [Part] {
        var parts: [Part] = []
        if let owner = filter.owner { parts.append(Part(exact: [term(.owner, owner.utf8)])) }
        if let domain = filter.domain {
            let reversed = Array(domain.utf8.reversed())
            parts.append(Part(exact: [term(.domain, reversed)], prefixes: [term(.domain, reversed + [UInt8(ascii: ".")])]))
        }
        if let identifier = filter.domainIdentifier {
            let bytes = Array(identifier.utf8)
            parts.append(Part(exact: [term(.domainIdentifier, bytes)], prefixes: [term(.domainIdentifier, bytes + [UInt8(ascii: ".")])]))
        }
        if let contentType = filter.contentType { parts.append(Part(exact: [term(.contentType, contentType.utf8)])) }
        if let openedBy = filter.openedBy {
            parts.append(Part(exact: openedBy.map { opening(filter.hasApp ?? .ios, $0) }))
        } else if let platform = filter.hasApp {
            parts.append(Part(exact: [term(.platform, platform.rawValue.utf8)]))
        }
        return parts
    }
}
