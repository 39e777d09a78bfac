import HTTPServer
import HTTPTypes
import Items
import JSON
import SearchModel

/// The API described in OpenAPI 3.1, served at `/v1/openapi.json` and kept in the repo as
/// `docs/openapi.json` (`searchlight serve --openapi` prints it; a test checks the two
/// agree, and that every route the service answers is in it).
public enum OpenAPIDocument {
    public static var json: JSONValue {
        .object(JSONObject([
            ("openapi", "3.1.0"),
            ("info", [
                "title": "Searchlight API",
                "version": "1",
                "description": .string("""
                    The shared app-content index: search for everyone; for API-key holders, pushed items \
                    (the CoreSpotlight model), batches with client state, public activities (the NSUserActivity \
                    model) and engagement. Errors are {"error": {"code", "message", "field"}} (field: the parameter at fault, when one is); client mistakes are 4xx. \
                    Writes are checked from their head first: a missing or bad key (401) or a body not declared \
                    application/json (415) is answered before any body byte is read, as is a Content-Length over \
                    8 MB (413). Strings must be UTF-8 without control characters; fields are length-capped as \
                    the schemas say (maxLength counts bytes).
                    """),
            ]),
            ("components", components),
            ("paths", paths),
        ]))
    }

    package static func response() throws -> HTTPServerResponse { .json(json) }

    // MARK: paths

    private static var paths: JSONValue {
        .object(JSONObject([
            ("/healthz", ["get": operation("Liveness: the index can be read.", response: object(["status": string]))]),
            ("/metrics", ["get": .object(JSONObject([
                ("summary", "Prometheus metrics: requests and latencies by route and status, index items and bytes."),
                ("responses", ["200": ["description": "text/plain; version=0.0.4", "content": ["text/plain": ["schema": string]]]]),
            ]))]),
            ("/v1/openapi.json", ["get": operation("This document.", response: ["type": "object"])]),
            ("/v1/search", ["get": .object(JSONObject([
                ("summary", "Search; each result says what a tap does (open-app, open-web, install-app)."),
                ("parameters", .array([
                    parameter("q", required: true, "The words searched for: any natural length up to 4,096 characters (the 32 most informative distinct terms are searched)."),
                    parameter("typing", "1 while the person is still typing: the last word also matches the words it begins."),
                    parameter("limit", "Results, 1 to 100 (default 10).", schema: ["type": "integer", "minimum": 1, "maximum": 100]),
                    parameter("platform", "ios (default) or android.", schema: ["type": "string", "enum": ["ios", "android"]]),
                    parameter("installed", "Installed apps: App Store ids, bundle ids or packages; repeat or separate with commas (at most 64, 256 bytes each)."),
                    parameter("offset", "Results to skip first, for paging (default 0); offset + limit is at most 1000.",
                              schema: ["type": "integer", "minimum": 0, "maximum": 999]),
                    parameter("snippets", "1 adds an excerpt to each result, with the UTF-16 ranges of its matches."),
                    parameter("owner", "Only the items of this API key owner (empty: items nobody owns).", schema: ["type": "string", "maxLength": 128]),
                    parameter("domain", "Only items whose webURL's host is this domain or one of its subdomains (read in lower case).",
                              schema: ["type": "string", "maxLength": 253]),
                    parameter("domainIdentifier", "Only items of this domainIdentifier or one under it (com.app.albums covers com.app.albums.2024).",
                              schema: ["type": "string", "maxLength": 256]),
                    parameter("contentType", "Only items of this content type, exactly (public.image, public.event…).", schema: ["type": "string", "maxLength": 128]),
                    parameter("hasApp", "Only items an app of this platform opens.", schema: ["type": "string", "enum": ["ios", "android"]]),
                    parameter("installedOnly", "1: only items a tap opens in one of the installed apps on the platform (a deep link, or a universal link to the item's page)."),
                    parameter("facets", "contentType, domain or both (comma-separated): the answer's facets count every match by each, and estimatedTotalHits is then exact (a query holding a phrase counts its best 1,000 matches; facetsExact says whether that was all)."),
                    parameter("near", "latitude,longitude in degrees (48.8566,2.3522): only items placed within radius of it; each result gives its distance.",
                              schema: ["type": "string", "maxLength": 65]),
                    parameter("radius", "With near: kilometres, more than 0 and at most 20016 (default 10).",
                              schema: ["type": "number", "exclusiveMinimum": 0, "maximum": 20016]),
                    parameter("sort", "relevance (default), or distance with near: the matches within radius nearest first, to the metre, equally near ones in a fixed order, found outward from the center until the page is full (estimatedTotalHits is then a lower bound; a circle of more than 65,536 items: its best 1,000 matches).",
                              schema: ["type": "string", "enum": ["relevance", "distance"]]),
                ])),
                ("responses", responses(ok: ref("SearchResponse"), errors: ["400"])),
            ]))]),
            ("/v1/items", [
                "post": write("Add or replace items (an existing uniqueIdentifier is replaced whole); one transaction.",
                              body: object(["items": ["type": "array", "items": ref("Item"), "maxItems": 1000]], required: ["items"]),
                              response: object(["upserted": integer]), errors: ["400", "401", "403", "413", "415"]),
                "delete": .object(JSONObject([
                    ("summary", "Delete the caller's items with these ids (in the query, or as {\"ids\": [...]} for long lists), or without ids every item the caller pushed."),
                    ("security", security),
                    ("parameters", .array([parameter("id", "An item id; repeat for several (at most 1000).")])),
                    ("requestBody", ["required": false, "content": ["application/json": ["schema": object(
                        ["ids": ["type": "array", "items": text(Limits.identifierBytes), "maxItems": 1000]])]]]),
                    ("responses", responses(ok: object(["deleted": integer]), errors: ["400", "401", "413", "415"])),
                ])),
            ]),
            ("/v1/domains/{domainIdentifier}", ["delete": .object(JSONObject([
                ("summary", "Delete the caller's items in a domain and every domain under it (a.b takes a.b.c, not a.bc)."),
                ("security", security),
                ("parameters", .array([pathParameter("domainIdentifier", "Reverse-DNS, under the key's domain (com.example.people).")])),
                ("responses", responses(ok: object(["deleted": integer]), errors: ["401", "403"])),
            ]))]),
            ("/v1/items/{id}/source", ["get": .object(JSONObject([
                ("summary", "For the caller's own item: the app-database record reference it was pushed with (source, entity, key); with the record's mapped attributes and relations when the server ingested that database for the caller."),
                ("security", security),
                ("parameters", .array([pathParameter("id", "The item's uniqueIdentifier.")])),
                ("responses", responses(ok: object(["id": string, "source": ref("RecordReference"), "record": ["type": "object"]]), errors: ["401", "404"])),
            ]))]),
            ("/v1/items/{id}/findability", ["get": .object(JSONObject([
                ("summary", "For the caller's own item: where it ranks for a query and why — each query word's forms (as written, stems, completions, corrections) and the fields holding them, the points each adds, the score's factors (relevance × quality × rating × engagement × freshness), the results above it, and what keeps it out or down (missing words, words only in the text, expired, below the first 1,000 results)."),
                ("security", security),
                ("parameters", .array([
                    pathParameter("id", "The item's uniqueIdentifier."),
                    parameter("q", required: true, "The query, as a person would type it."),
                    parameter("platform", "ios (default) or android, as for /v1/search."),
                    parameter("installed", "Apps on the device, as for /v1/search."),
                    parameter("typing", "1: the last word is still being typed (its completions count), as for /v1/search."),
                ])),
                ("responses", responses(ok: object([
                    "query": string, "id": string, "indexed": boolean, "matches": boolean, "rank": ["type": ["integer", "null"]],
                    "searched": integer, "estimatedTotalHits": integer, "words": ["type": "array"], "score": ["type": ["object", "null"]],
                    "above": ["type": "array"], "findings": ["type": "array"],
                ]), errors: ["400", "401", "404"])),
            ]))]),
            ("/v1/batches/{name}", [
                "get": .object(JSONObject([
                    ("summary", "The client state last committed with this batch name (null if none)."),
                    ("security", security),
                    ("parameters", .array([pathParameter("name", "The caller's batch name.")])),
                    ("responses", responses(ok: object(["name": string, "clientState": nullableString]), errors: ["401"])),
                ])),
                "post": .object(JSONObject([
                    ("summary", "Compare-and-swap commit: applied only if the stored client state equals expectedClientState, else 409."),
                    ("security", security),
                    ("parameters", .array([pathParameter("name", "The caller's batch name.")])),
                    ("requestBody", requestBody(object([
                        "items": ["type": "array", "items": ref("Item")], "deleteIdentifiers": ["type": "array", "items": string],
                        "expectedClientState": nullableString, "clientState": ["type": "string", "maxLength": 250],
                    ], required: ["expectedClientState", "clientState"]))),
                    ("responses", responses(ok: object(["name": string, "clientState": string, "upserted": integer, "deleted": integer]),
                                            errors: ["400", "401", "403", "409", "413"])),
                ])),
            ]),
            ("/v1/activities", ["post": write(
                "Report a public activity from one device; it becomes searchable once enough distinct devices, on as many distinct networks (IPv4 /24, IPv6 /48), reported it.",
                body: ref("Activity"), response: object(["id": string, "devices": integer, "networks": integer, "threshold": integer, "public": boolean]),
                errors: ["400", "401", "403"], status: "202")]),
            ("/v1/engagement", ["post": write(
                "Impressions and clicks of results; they feed the ranking's engagement signal. With a key, counted for the owner's items and the operator's pages on the key's domain (others are foreignItems; 403 when all are); at most 10,000 events at once and 200 a second per key. Without a key (the search page at /), the body carries the engagementToken of the search answer that showed the results: events count only for items it names, within an hour, an impression once per item, client network (IPv4 /24, IPv6 /56) and day, a click likewise and only after that network's impression; 20 requests at once per network and one every 2 s after that (429). The ranking counts anonymous engagement once 3 distinct networks reported on an item.",
                body: object(["query": string, "token": ["type": "string", "description": "Without a key: the answer's engagementToken."],
                              "platform": ["type": "string", "enum": ["ios", "android"]],
                              "installed": ["type": "array", "maxItems": 64, "items": string],
                              "events": ["type": "array", "maxItems": 1000, "items": object(
                    ["id": string, "type": ["type": "string", "enum": ["impression", "click"]]], required: ["id", "type"])]],
                    required: ["events"]),
                response: object(["items": integer, "unknownItems": integer, "foreignItems": integer, "impressions": integer, "clicks": integer]),
                errors: ["400", "401", "403", "429"])]),
            ("/v1/shard/statistics", ["post": shardRoute(
                "For a router of this store (serve --router, header X-Searchlight-Router): what the query reads from this node's part of the index — document and token counts, languages, each term's document frequency (terms in hex), completions and spelling candidates.",
                response: ["type": "object"])]),
            ("/v1/shard/search", ["post": shardRoute(
                "For a router of this store: the search ranked with the whole index's statistics (the sum of every shard's /v1/shard/statistics), in the shape of /v1/search plus each result's full score (scores) and owner (owners). A long request's feedback: with feedback \"first\", also its best 200 first-stage candidates (firstStage: [score, order key in hex]); with feedback {depth, terms}, its best depth scored again with the added words.",
                response: ref("SearchResponse"))]),
            ("/v1/shard/feedback", ["post": shardRoute(
                "For a router of this store: a long request's relevance feedback — how this node reads its best count (1-10) first-stage candidates (readings: score, order key, length, each word form with its stem class and weighted count; excluded: the request's own stem classes; words in hex).",
                response: ["type": "object"])]),
            ("/indexnow", [
                "get": .object(JSONObject([
                    ("summary", "IndexNow (indexnow.org), one URL: with serve --indexnow, a site tells the crawl a URL of its own changed. Taken only for hosts the crawl has visited (422 unknown-host: nothing is fetched), once the site's key file (keyLocation, else /{key}.txt on the URL's origin) holds the key (403 key-not-valid, remembered 10 minutes; a key that held is trusted an hour); the URL is then due at once in the crawl's frontier and fetched at its next run under robots.txt and its politeness. At most 10 notices a minute per host and key, 10,000 URLs a day per host, 3 key-file fetches and then one a minute per host (429 with Retry-After). 404 without --indexnow."),
                    ("parameters", .array([
                        parameter("url", required: true, "The URL that changed (added, updated or deleted)."),
                        parameter("key", required: true, "The site's key: 8 to 128 letters, digits and '-'."),
                        parameter("keyLocation", "Where the key file is, on the URL's host; the URLs must be under its folder."),
                    ])),
                    ("responses", responses(ok: ref("IndexNowReceipt"), errors: ["400", "403", "404", "422", "429", "503"], status: "202")),
                ])),
                "post": .object(JSONObject([
                    ("summary", "IndexNow, a list of URLs of one host (Content-Type: application/json), under the rules of the GET form; at most 10,000 URLs and 1 MiB."),
                    ("requestBody", requestBody(object(["host": string, "key": string, "keyLocation": string,
                                                        "urlList": ["type": "array", "minItems": 1, "maxItems": 10000, "items": string]],
                                                       required: ["host", "key", "urlList"]))),
                    ("responses", responses(ok: ref("IndexNowReceipt"), errors: ["400", "403", "404", "413", "415", "422", "429", "503"], status: "202")),
                ])),
            ]),
        ]))
    }

    // MARK: components

    private static var components: JSONValue {
        [
            "securitySchemes": ["apiKey": ["type": "http", "scheme": "bearer", "description": "A key from `searchlight keys create`."]],
            "schemas": [
                "Error": object(["error": object(["code": string, "message": string, "field": string], required: ["code", "message"])], required: ["error"]),
                "App": closed(object([
                    "platform": ["type": "string", "enum": ["ios", "android"]],
                    "appStoreId": ["type": "string", "pattern": "^(id)?[0-9]{1,20}$"],
                    "bundleId": text(255), "package": text(255), "name": text(256),
                    "deepLink": ["type": "string", "maxLength": .number(String(Limits.urlBytes)),
                                 "description": "An http(s) URL or an app's own scheme (myapp://item/42); never a scheme a browser or the system handles (javascript:, data:, blob:, view-source:, file:, ms-msdt:, search-ms:, intent:…)."],
                ], required: ["platform"])),
                "Item": closed(object([
                    "uniqueIdentifier": text(Limits.identifierBytes), "domainIdentifier": text(Limits.domainIdentifierBytes),
                    "contentType": text(Limits.contentTypeBytes), "title": text(Limits.titleBytes),
                    "contentDescription": text(Limits.descriptionBytes),
                    "keywords": ["type": "array", "items": text(Limits.keywordBytes), "maxItems": .number(String(Limits.keywords))],
                    "thumbnailURL": url, "webURL": url,
                    "rating": ["type": "number", "minimum": 0, "description": "On the scale 0…ratingScale."],
                    "ratingScale": ["type": "number", "exclusiveMinimum": 0, "maximum": .number(String(Int(Limits.ratingScale)))],
                    "ratingCount": ["type": "integer", "minimum": 0, "maximum": .number(String(Limits.ratingCount))],
                    "price": text(Limits.shortTextBytes), "currency": text(Limits.shortTextBytes),
                    "telephone": text(Limits.shortTextBytes), "address": text(Limits.addressBytes),
                    "apps": ["type": "array", "items": ref("App"), "maxItems": .number(String(Limits.apps))], "allowsWebFallback": boolean,
                    "expirationDate": ["type": "string", "format": "date-time", "description": "At most ten years ahead; a month by default."],
                    "text": text(Limits.textBytes),
                    "source": ref("RecordReference"),
                    "latitude": ["type": "number", "minimum": -90, "maximum": 90, "description": "Where the item is (WGS 84 degrees); with longitude."],
                    "longitude": ["type": "number", "minimum": -180, "maximum": 180, "description": "With latitude."],
                ], required: ["uniqueIdentifier", "title"])),
                "IndexNowReceipt": object([
                    "due": ["type": "integer", "description": "URLs made due in the crawl's frontier."],
                    "added": ["type": "integer", "description": "Of them, URLs the frontier did not hold."],
                    "ignored": ["type": "integer", "description": "URLs of an origin (scheme) of the host the crawl never visited."],
                ]),
                "RecordReference": closed(object([
                    "name": text(RecordReference.Limits.nameBytes), "entity": text(RecordReference.Limits.entityBytes),
                    "key": text(RecordReference.Limits.keyBytes),
                ], required: ["name", "entity", "key"])),
                "Activity": closed(object([
                    "activityType": text(256), "title": text(Limits.titleBytes), "webpageURL": url,
                    "keywords": ["type": "array", "items": text(Limits.keywordBytes), "maxItems": .number(String(Limits.keywords))],
                    "contentDescription": text(Limits.descriptionBytes), "thumbnailURL": url, "deviceId": text(256),
                    "apps": ["type": "array", "items": ref("App"), "maxItems": .number(String(Limits.apps))],
                ], required: ["activityType", "title", "webpageURL", "deviceId"])),
                "SearchResult": object([
                    "id": string, "url": nullableString, "title": string, "description": nullableString, "domain": nullableString,
                    "thumbnail": nullableString, "score": number, "apps": ["type": "array", "items": ref("App")],
                    "action": object(["type": ["type": "string", "enum": ["open-app", "open-web", "install-app"]], "url": nullableString]),
                    "source": ["description": "How the item came: crawled, pushed or activity (the API never names app records; local searches do).",
                               "type": "string", "enum": ["crawled", "pushed", "activity"]],
                    "rendered": ["type": "boolean", "description": "Present and true when the crawler read the page as a browser rendered it."],
                    "latitude": ["type": "number", "description": "Present when the item has a place (pushed, or the page's schema.org geo)."],
                    "longitude": number,
                    "distance": ["type": "number", "description": "With near: kilometres from its place, to the metre."],
                    "snippet": string,
                    "snippetHighlights": ["type": "array", "description": "[start, end) UTF-16 offsets of the matches in snippet.",
                                          "items": ["type": "array", "items": integer, "minItems": 2, "maxItems": 2]],
                ]),
                "SearchResponse": object([
                    "query": string, "results": ["type": "array", "items": ref("SearchResult")], "matchedAnyWord": boolean,
                    "offset": integer,
                    "estimatedTotalHits": ["type": "integer", "description": "Items matching; exact when totalHitsExact, else a lower bound."],
                    "totalHitsExact": boolean,
                    "processingTimeMs": ["type": "number", "description": "How long the answer took to compute (a cached answer keeps its figure)."],
                    "corrections": ["type": "object", "additionalProperties": ["type": "array", "items": string]],
                    "engagementToken": ["type": "string", "description": "Signed proof of the first 20 results shown; send it with their impressions and clicks."],
                    "facets": ["type": "object", "description": "With facets=: per facet, its values' counts (at most 20, most frequent first).",
                               "additionalProperties": ["type": "object", "additionalProperties": integer]],
                    "facetsExact": ["type": "boolean", "description": "The facets count every match (false: the best 1,000 of a query holding a phrase, or a shard missing)."],
                ], required: ["query", "results"]),
            ],
        ]
    }

    // MARK: builders

    private static let string: JSONValue = ["type": "string"]
    private static let nullableString: JSONValue = ["type": ["string", "null"]]
    private static let integer: JSONValue = ["type": "integer"]
    private static let number: JSONValue = ["type": "number"]
    private static let boolean: JSONValue = ["type": "boolean"]
    private typealias Limits = SearchableItem.Limits
    private static let url: JSONValue = [
        "type": "string", "format": "uri", "maxLength": .number(String(SearchableItem.Limits.urlBytes)),
        "description": "An absolute http(s) URL without user@.",
    ]

    /// A string of at most `bytes` UTF-8 bytes (JSON Schema counts characters, so this is a
    /// bound, not the exact rule), without control characters.
    private static func text(_ bytes: Int) -> JSONValue { ["type": "string", "maxLength": .number(String(bytes))] }

    /// No members but the listed ones (unknown fields are 400).
    private static func closed(_ schema: JSONValue) -> JSONValue {
        guard case .object(var fields) = schema else { return schema }
        fields.append("additionalProperties", .bool(false))
        return .object(fields)
    }
    private static let security: JSONValue = [["apiKey": []]]

    private static func ref(_ name: String) -> JSONValue { ["$ref": .string("#/components/schemas/\(name)")] }

    private static func object(_ properties: [String: JSONValue], required: [String] = []) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("type", "object"),
            ("properties", .object(JSONObject(properties.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))),
        ]
        if !required.isEmpty { fields.append(("required", .array(required.map(JSONValue.string)))) }
        return .object(JSONObject(fields))
    }

    private static func parameter(_ name: String, required: Bool = false, _ description: String, schema: JSONValue = ["type": "string"]) -> JSONValue {
        ["name": .string(name), "in": "query", "required": .bool(required), "description": .string(description), "schema": schema]
    }

    private static func pathParameter(_ name: String, _ description: String) -> JSONValue {
        ["name": .string(name), "in": "path", "required": true, "description": .string(description), "schema": string]
    }

    private static func requestBody(_ schema: JSONValue) -> JSONValue {
        ["required": true, "content": ["application/json": ["schema": schema]]]
    }

    private static func responses(ok: JSONValue, errors: [String], status: String = "200") -> JSONValue {
        var fields: [(String, JSONValue)] = [(status, ["description": "OK", "content": ["application/json": ["schema": ok]]])]
        for code in errors {
            fields.append((code, ["description": .string(HTTPStatus.reason(Int(code) ?? 500)),
                                  "content": ["application/json": ["schema": ref("Error")]]]))
        }
        return .object(JSONObject(fields))
    }

    private static func operation(_ summary: String, response: JSONValue) -> JSONValue {
        ["summary": .string(summary), "responses": responses(ok: response, errors: [])]
    }

    /// A route only routers call: the search fields as a JSON body, 403 without the router's header.
    private static func shardRoute(_ summary: String, response: JSONValue) -> JSONValue {
        .object(JSONObject([
            ("summary", .string(summary)),
            ("requestBody", requestBody(object(["q": string, "limit": integer, "offset": integer, "platform": string, "installed": ["type": "array", "items": string],
                                                "snippets": boolean, "typing": boolean, "statistics": ["type": "object"],
                                                "filter": object(["owner": string, "domain": string, "domainIdentifier": string, "contentType": string,
                                                                  "hasApp": ["type": "string", "enum": ["ios", "android"]],
                                                                  "openedBy": ["type": "array", "maxItems": 64, "items": string],
                                                                  "near": ["type": "array", "description": "[latitude, longitude, radius in km]",
                                                                           "items": number, "minItems": 3, "maxItems": 3]]),
                                                "sort": ["type": "string", "enum": ["relevance", "distance"]],
                                                "facets": ["type": "array", "maxItems": 2, "items": ["type": "string", "enum": ["contentType", "domain"]]],
                                                "now": ["type": "number", "description": "The router's time (seconds since 1970): every shard ranks at the same instant."]],
                                               required: ["q"]))),
            ("responses", responses(ok: response, errors: ["400", "403", "503"])),
        ]))
    }

    private static func write(_ summary: String, body: JSONValue, response: JSONValue, errors: [String], status: String = "200") -> JSONValue {
        .object(JSONObject([
            ("summary", .string(summary)), ("security", security), ("requestBody", requestBody(body)),
            ("responses", responses(ok: response, errors: errors, status: status)),
        ]))
    }
}
