/// Why a call failed, told apart by ``code`` — never by the message's text — with what the
/// server said: its HTTP status, its error code (`invalid-field`, `conflict`,
/// `invalid-key`…), its message and the field at fault.
public struct SearchlightError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as a value to switch on.
    public enum Code: Sendable, Equatable {
        /// No HTTP answer: connection, TLS or timeout.
        case unreachable
        /// The task was cancelled.
        case cancelled
        /// 400: the request was wrong; ``field`` names the parameter or field at fault.
        case badRequest
        /// 401: no key, a wrong secret or a revoked key (``serverCode`` says which).
        case unauthorized
        /// 403: the key may not do this (another domain's items).
        case forbidden
        /// 404.
        case notFound
        /// 409: a batch's stored client state is not the one expected (``SearchableIndex/Batch``).
        case conflict
        /// 413: the request is too large.
        case tooLarge
        /// 429 after every retry.
        case rateLimited
        /// 503 after every retry: the node is catching up or its store is unavailable.
        case unavailable
        /// Another status.
        case refused
        /// An answer whose body is not what the call expects.
        case notUnderstood
    }

    public let code: Code
    public let message: String
    /// The HTTP status, when there was an answer.
    public let status: Int?
    /// The API's own error code (`error.code`), when it sent one.
    public let serverCode: String?
    /// The API's own message (`error.message`), when it sent one.
    public let serverMessage: String?
    /// The parameter or field at fault (`error.field`), when the API named one.
    public let field: String?

    public init(_ code: Code, _ message: String, status: Int? = nil, serverCode: String? = nil, serverMessage: String? = nil,
                field: String? = nil) {
        self.code = code
        self.message = message
        self.status = status
        self.serverCode = serverCode
        self.serverMessage = serverMessage
        self.field = field
    }

    public var description: String { message }

    /// The code of an HTTP status that is not a success.
    static func code(status: Int) -> Code {
        switch status {
        case 400: .badRequest
        case 401: .unauthorized
        case 403: .forbidden
        case 404: .notFound
        case 409: .conflict
        case 413: .tooLarge
        case 429: .rateLimited
        case 503: .unavailable
        default: .refused
        }
    }
}
