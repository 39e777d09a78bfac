import Foundation
import HTTPServer
import HTTPTypes
import Items
import JSON
import SearchModel
import TextUtilities

/// A client-facing failure: an HTTP status and `{"error": {"code": …, "message": …}}`, with
/// `"field"` naming the parameter at fault when one is. Client mistakes are 4xx; 500 is kept
/// for faults of the service itself.
public struct APIError: Error, Sendable {
    public var status: Int
    public var code: String
    public var message: String
    /// The request's parameter at fault (`hasApp`, `radius`…), when one is.
    public var field: String?
    public var headers: [HTTPField] = []

    public init(_ status: Int, _ code: String, _ message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    package static func badRequest(_ message: String) -> APIError { APIError(400, "bad-request", message) }

    /// A failure of the server's own (a database error, a bug): the client gets a reference,
    /// the operator the detail on standard error under it — what failed inside (paths, SQL,
    /// types) is not the client's to read.
    public static func internalError(_ error: any Error) -> APIError {
        let reference = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        FileHandle.standardError.write(Data("searchlight: internal error \(reference): \(TerminalText.escaped(String(describing: error)))\n".utf8))
        return APIError(500, "internal", "the server could not answer this request (reference \(reference), in its log)")
    }
    /// A search parameter that is missing, malformed, out of range or unknown: the same
    /// code the index gives a query it cannot take.
    package static func invalidQuery(_ message: String) -> APIError { APIError(400, "invalid-query", message) }
    package static func invalidJSON(_ message: String) -> APIError { APIError(400, "invalid-json", message) }
    package static let unauthorized = APIError(401, "unauthorized", "this needs an API key: Authorization: Bearer <key>")
    package static func forbidden(_ message: String) -> APIError { APIError(403, "forbidden", message) }
    public static func notFound(_ message: String) -> APIError { APIError(404, "not-found", message) }
    package static func tooLarge(_ message: String) -> APIError { APIError(413, "too-large", message) }

    package static func methodNotAllowed(_ allowed: [String]) -> APIError {
        var error = APIError(405, "method-not-allowed", "use \(allowed.joined(separator: " or "))")
        error.headers = [HTTPField("Allow", allowed.joined(separator: ", "))]
        return error
    }

    /// The index's errors, by who was at fault.
    public init(_ error: SearchIndexError) {
        switch error.kind {
        case .invalidQuery, .invalidItem:
            self.init(400, error.reason, error.message)
            field = error.field
        case .forbidden: self.init(403, error.reason, error.message)
        case .conflict: self.init(409, error.reason, error.message)
        case .locked:
            self.init(503, error.reason, error.message)
            headers = [HTTPField("Retry-After", "1")]
        case .noIndex, .incompatible, .corrupt, .database, .invalidResponse: self = .internalError(error)
        }
    }

    /// A body field that is missing, wrong or out of its limits: 400, or 413 for a list
    /// with too many entries.
    package init(_ error: FieldError) {
        self.init(error.isTooLarge ? 413 : 400, error.isTooLarge ? "too-large" : "invalid-field", error.description)
    }

    public var response: HTTPServerResponse {
        let details = JSONObject([("code", .string(code)), ("message", .string(message))] + (field.map { [("field", JSONValue.string($0))] } ?? []))
        var response = HTTPServerResponse.json(["error": .object(details)], status: status)
        response.headers += headers
        return response
    }
}
