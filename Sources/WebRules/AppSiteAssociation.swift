import FoundationEssentials
import JSON
import TextUtilities
import WebURL

/// An `apple-app-site-association` file's `applinks` section: which apps claim which
/// https URLs of the host as universal links.
///
/// Both formats Apple has used:
/// - legacy (iOS 9–12): `details: [{appID, paths: ["/a/*", "NOT /a/b"]}]`, patterns on the
///   path only, case-sensitive, first match wins, `NOT ` excludes;
/// - current (iOS 13+): `details: [{appIDs, components: [{"/", "?", "#", exclude,
///   caseSensitive, percentEncoded}], defaults}]`, where a component matches when all of
///   its keys match (a missing key is `*`, which also matches an absent part); the first
///   matching component decides, and an `exclude` stops the search.
///
/// Details are scanned in order and the first that decides answers. Patterns must match
/// the whole part: `*` is any run of characters, `?` exactly one character, there is no
/// escape; a pattern's leading `/` is optional, trailing slashes are insignificant, and
/// `/buy/*` also matches `/buy`. `?` as a dictionary constrains the named query items
/// only: an absent item counts as empty, every occurrence of a repeated name must match,
/// and a non-string value voids the dictionary. `caseSensitive` and `percentEncoded`
/// default to true, overridden by `applinks.defaults`, then `details[].defaults`, then
/// the component. `$(name)` substitutes a custom variable's values or a predefined class
/// (`alpha`, `upper`, `lower`, `alnum`, `digit`, `xdigit`, `region`, `lang`).
public struct AppSiteAssociation: Sendable {
    struct Options: Sendable {
        var caseSensitive = true
        var percentEncoded = true

        func overridden(by object: JSONObject?) -> Options {
            var copy = self
            if let value = object?["caseSensitive"]?.boolValue { copy.caseSensitive = value }
            if let value = object?["percentEncoded"]?.boolValue { copy.percentEncoded = value }
            return copy
        }
    }

    /// A component with its patterns compiled once, when the file is read.
    struct Component: Sendable {
        /// The path pattern, and for `/a/*` the pattern `/a` that also matches.
        var path: [AssociationPattern]?
        var query: Query?
        var fragment: AssociationPattern?
        var exclude: Bool
        var options: Options
        /// The component as written, for people: `{"/": "/items/*", "exclude": true}` or a
        /// legacy `NOT /videos/*`.
        var written = ""

        enum Query: Sendable {
            case pattern(AssociationPattern)
            case items([String: AssociationPattern])
        }

        enum RawQuery {
            case pattern(String)
            case items([String: String])
        }

        /// Nil when the patterns need more states than `budget` has left; what they use
        /// is taken from it.
        init?(path: String?, query: RawQuery?, fragment: String?, exclude: Bool, options: Options,
              variables: [String: [String]], budget: inout Int) {
            var left = budget
            func compiled(_ pattern: String) -> AssociationPattern? {
                let result = AssociationPattern(pattern, caseSensitive: options.caseSensitive, variables: variables, maximumSize: left)
                left -= result?.size ?? left
                return result
            }
            if let path {
                var normalized = path.hasPrefix("/") || path.hasPrefix("*") ? path : "/" + path
                while normalized.count > 1, normalized.hasSuffix("/") { normalized.removeLast() }
                guard let full = compiled(normalized) else { return nil }
                self.path = [full]
                if normalized.hasSuffix("/*") {
                    guard let parent = compiled(String(normalized.dropLast(2))) else { return nil }
                    self.path?.append(parent)
                }
            }
            switch query {
            case .pattern(let pattern)?:
                guard let compiled = compiled(pattern) else { return nil }
                self.query = .pattern(compiled)
            case .items(let items)?:
                var patterns: [String: AssociationPattern] = [:]
                for (name, pattern) in items {
                    guard let compiled = compiled(pattern) else { return nil }
                    patterns[name] = compiled
                }
                self.query = .items(patterns)
            case nil:
                self.query = nil
            }
            if let fragment {
                guard let compiled = compiled(fragment) else { return nil }
                self.fragment = compiled
            }
            self.exclude = exclude
            self.options = options
            budget = left
        }
    }

    /// The most automaton states the file's patterns may compile to, all together: the
    /// work of matching one URL is at most its length times this. Components past it are
    /// ignored. Real files have a few hundred; `$(region)` alone is about 750.
    public static let maximumPatternSize = 20_000

    struct Detail: Sendable {
        var appIDs: [String]
        var components: [Component]
    }

    var details: [Detail]

    /// Every app id the file names under `applinks`.
    public var appIDs: [String] { details.flatMap(\.appIDs) }

    /// The component that decided for a URL: its detail's app ids, where it is in the
    /// file and whether it excludes.
    public struct Match: Sendable, Hashable {
        public var appIDs: [String]
        /// Positions in `applinks.details` and in that detail's components (or paths).
        public var detail: Int
        public var component: Int
        /// The component as written.
        public var written: String
        public var excludes: Bool
    }

    /// The first component whose patterns match `url` (https only), if any.
    public func match(for url: WebURL) -> Match? {
        guard url.isHTTPS else { return nil }
        for (d, detail) in details.enumerated() {
            for (c, component) in detail.components.enumerated() where matches(component, url) {
                return Match(appIDs: detail.appIDs, detail: d, component: c, written: component.written, excludes: component.exclude)
            }
        }
        return nil
    }

    /// Reads the file; nil when it is not a valid JSON object (Apple's reader is strict, so
    /// a file with a trailing comma claims nothing on a device either). A valid file without
    /// `applinks` (say, only `webcredentials`) is read and claims nothing, as `swcutil` has it.
    public init?(parsing bytes: [UInt8]) {
        guard let root = (try? JSONParser.parse(bytes: bytes))?.objectValue else { return nil }
        guard let applinks = root["applinks"]?.objectValue else {
            details = []
            return
        }
        let rootOptions = Options().overridden(by: applinks["defaults"]?.objectValue)
        var variables: [String: [String]] = [:]
        for member in applinks["substitutionVariables"]?.objectValue?.members ?? [] {
            variables[member.key] = member.value.arrayValue?.compactMap(\.stringValue) ?? []
        }
        var details: [Detail] = []
        var budget = Self.maximumPatternSize
        let detailValues: [(String?, JSONValue)]
        if let list = applinks["details"]?.arrayValue {
            detailValues = list.map { (nil, $0) }
        } else if let dictionary = applinks["details"]?.objectValue {
            // The oldest form: {"TEAM.bundle": {"paths": [...]}}, read in sorted key order.
            detailValues = dictionary.members.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        } else {
            detailValues = []
        }
        for (key, value) in detailValues {
            guard let object = value.objectValue else { continue }
            var ids = object["appIDs"]?.arrayValue?.compactMap(\.stringValue) ?? []
            if let single = object["appID"]?.stringValue { ids.append(single) }
            if let key { ids.append(key) }
            guard !ids.isEmpty else { continue }
            let options = rootOptions.overridden(by: object["defaults"]?.objectValue)
            var components: [Component] = []
            if let list = object["components"]?.arrayValue {
                for case .object(let c) in list {
                    var query: Component.RawQuery?
                    switch c["?"] {
                    case .string(let pattern): query = .pattern(pattern)
                    case .object(let items):
                        var map: [String: String] = [:]
                        var valid = true
                        for item in items.members {
                            guard let pattern = item.value.stringValue else {
                                valid = false
                                break
                            }
                            map[item.key] = pattern
                        }
                        query = valid ? .items(map) : nil
                    default: query = nil
                    }
                    guard var component = Component(
                        path: c["/"]?.stringValue, query: query, fragment: c["#"]?.stringValue,
                        exclude: c["exclude"]?.boolValue ?? false, options: options.overridden(by: c),
                        variables: variables, budget: &budget)
                    else { break }
                    component.written = String(JSONWriter.string(.object(c)).prefix(500))
                    components.append(component)
                }
            } else if let paths = object["paths"]?.arrayValue {
                for case .string(let raw) in paths {
                    let exclude = raw.hasPrefix("NOT ")
                    guard var component = Component(
                        path: exclude ? String(raw.dropFirst(4)) : raw, query: nil, fragment: nil, exclude: exclude,
                        options: Options(caseSensitive: true, percentEncoded: true), variables: [:], budget: &budget)
                    else { break }
                    component.written = String(raw.prefix(500))
                    components.append(component)
                }
            }
            details.append(Detail(appIDs: ids, components: components))
        }
        self.details = details
    }

    /// The apps for which `url` is a universal link (empty for http URLs).
    public func appIDs(claiming url: WebURL) -> [String] {
        guard let match = match(for: url), !match.excludes else { return [] }
        return match.appIDs
    }

    private func matches(_ component: Component, _ url: WebURL) -> Bool {
        let options = component.options
        func prepare(_ text: String) -> String {
            let decoded = options.percentEncoded ? text : PercentDecoding.decode(text)
            return options.caseSensitive ? decoded : decoded.lowercased()
        }
        if let patterns = component.path {
            var path = prepare(url.path)
            while path.count > 1, path.hasSuffix("/") { path.removeLast() }
            guard patterns.contains(where: { $0.matches(path) }) else { return false }
        }
        if let fragment = component.fragment, !fragment.matches(prepare(url.fragment ?? "")) { return false }
        switch component.query {
        case .pattern(let pattern)?:
            if !pattern.matches(prepare(url.query ?? "")) { return false }
        case .items(let items)?:
            let pairs = (url.query ?? "").split(separator: "&").map { pair -> (String, String) in
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                return (prepare(String(parts[0])), prepare(parts.count > 1 ? String(parts[1]) : ""))
            }
            for (name, pattern) in items {
                let key = prepare(name)
                let values = pairs.filter { $0.0 == key }.map(\.1)
                for value in values.isEmpty ? [""] : values where !pattern.matches(value) { return false }
            }
        case nil:
            break
        }
        return true
    }
}

/// ISO 3166-1 alpha-2 region codes and ISO 639-1 language codes, for `$(region)` and
/// `$(lang)` (Apple uses `Locale.isoRegionCodes` / `isoLanguageCodes`; `UK` is not a region).
enum ISOCodes {
    static let regions = """
        AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF \
        CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH \
        GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW \
        KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG \
        NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN \
        SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT \
        ZA ZM ZW
        """.split(separator: " ").map(String.init)
    static let languages = """
        aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz ee el en eo es et eu \
        fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn \
        ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om or os \
        pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw \
        ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu
        """.split(separator: " ").map(String.init)
}

/// An Android `assetlinks.json` file: the packages that may handle the site's https links.
public struct AssetLinks: Sendable, Hashable {
    /// One statement naming an Android app.
    public struct Statement: Sendable, Hashable {
        public var package: String
        public var relations: [String]
        /// `sha256_cert_fingerprints`: the signing certificates the app must have.
        public var fingerprints: [String]
        /// The statement grants `delegate_permission/common.handle_all_urls`.
        public var handlesAllURLs: Bool { relations.contains(AssetLinks.handleAllURLs) }
    }

    public static let handleAllURLs = "delegate_permission/common.handle_all_urls"

    /// Packages with the `handle_all_urls` relation, in order, once each.
    public var packages: [String]
    /// Every statement whose target is an Android app (at most 100).
    public var statements: [Statement]

    /// Reads the file; nil when it is not a valid JSON array (Android's verifier is strict).
    public init?(parsing bytes: [UInt8]) {
        guard let list = (try? JSONParser.parse(bytes: bytes))?.arrayValue else { return nil }
        var packages: [String] = []
        var statements: [Statement] = []
        for case .object(let statement) in list.prefix(100) {
            guard let target = statement["target"]?.objectValue, target["namespace"]?.stringValue == "android_app",
                let package = target["package_name"]?.stringValue
            else { continue }
            let relations = statement["relation"]?.arrayValue?.compactMap(\.stringValue) ?? []
            let fingerprints = target["sha256_cert_fingerprints"]?.arrayValue?.compactMap(\.stringValue) ?? []
            let entry = Statement(package: String(package.prefix(256)), relations: relations.prefix(16).map { String($0.prefix(200)) },
                                  fingerprints: fingerprints.prefix(16).map { String($0.prefix(200)) })
            statements.append(entry)
            if entry.handlesAllURLs, !packages.contains(entry.package) { packages.append(entry.package) }
        }
        self.packages = packages
        self.statements = statements
    }
}
