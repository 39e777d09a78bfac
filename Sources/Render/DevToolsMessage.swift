import JSON

/// One message the browser writes on its DevTools pipe, decoded: the answer to a command
/// (by its id) or an event of a session. Everything in it comes from a browser that runs a
/// stranger's page, so it is read as hostile: only the fields used, lengths capped.
package enum DevToolsMessage: Equatable {
    case answer(id: Int, result: Result<JSONValue, Refusal>)
    case event(session: String, method: String, params: JSONValue)

    /// A command's error, its message cut to 200 characters.
    package struct Refusal: Error, Equatable {
        package var message: String
    }

    /// The message in `bytes`; nil for one that is not a JSON object with an id or a method.
    package init?(_ bytes: [UInt8]) {
        guard let json = try? JSONParser.parse(bytes: bytes) else { return nil }
        if let id = json["id"]?.intValue {
            if let error = json["error"] {
                self = .answer(id: id, result: .failure(Refusal(message: String((error["message"]?.stringValue ?? "error").prefix(200)))))
            } else {
                self = .answer(id: id, result: .success(json["result"] ?? .null))
            }
        } else if let method = json["method"]?.stringValue {
            self = .event(session: json["sessionId"]?.stringValue ?? "", method: String(method.prefix(200)), params: json["params"] ?? .null)
        } else {
            return nil
        }
    }
}

/// A request of the page the browser paused (`Fetch.requestPaused`): what the renderer
/// needs to decide on it.
package struct PausedRequest: Equatable {
    package var id: String
    package var url: String
    package var resourceType: String
    package var method: String
    package var headers: [(name: String, value: String)]

    package static func == (a: PausedRequest, b: PausedRequest) -> Bool {
        a.id == b.id && a.url == b.url && a.resourceType == b.resourceType && a.method == b.method
            && a.headers.map(\.name) == b.headers.map(\.name) && a.headers.map(\.value) == b.headers.map(\.value)
    }

    /// Headers kept from one request, at most (a page cannot make the crawler send thousands).
    package static let maximumHeaders = 64

    package init?(params: JSONValue) {
        guard let id = params["requestId"]?.stringValue, id.utf8.count <= 256, let url = params["request"]?["url"]?.stringValue else { return nil }
        self.id = id
        self.url = url
        resourceType = String((params["resourceType"]?.stringValue ?? "Other").prefix(64))
        method = String((params["request"]?["method"]?.stringValue ?? "GET").prefix(16))
        headers = (params["request"]?["headers"]?.objectValue?.members ?? []).prefix(Self.maximumHeaders).compactMap { member in
            member.value.stringValue.map { (member.key, $0) }
        }
    }

    /// What is not fetched whatever its address: types the text does not need, other
    /// schemes and methods.
    package var refusal: SubresourceRefusal? {
        guard ["Script", "XHR", "Fetch"].contains(resourceType) else { return .notNeeded }
        guard method == "GET", url.hasPrefix("http://") || url.hasPrefix("https://") else { return .notAllowed }
        return nil
    }
}
