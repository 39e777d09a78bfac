import HTTPServer
import HTTPTypes
import JSON

extension HTTPServerResponse {
    /// A JSON answer, ending with a line feed.
    public static func json(_ value: JSONValue, status: Int = 200) -> HTTPServerResponse {
        HTTPServerResponse(status: status, headers: [HTTPField("Content-Type", "application/json")], body: .bytes(JSONWriter.bytes(value) + [0x0A]))
    }

    /// The response with the headers every answer of the API carries, the service's and
    /// the router's alike: `X-Content-Type-Options: nosniff`.
    public var hardened: HTTPServerResponse {
        var response = self
        if !response.headers.contains(where: { $0.hasName("X-Content-Type-Options") }) {
            response.headers.append(HTTPField("X-Content-Type-Options", "nosniff"))
        }
        return response
    }
}
