/// Why a request to the service failed, told apart by its code, never by its text.
public struct ServiceClientError: Error, Sendable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        /// No HTTP answer: connection, TLS or timeout.
        case unreachable
        /// 400: the request itself was wrong (the user's input, as the service read it).
        case badRequest
        /// Any other status than 200, or a body that is not JSON.
        case refused
        /// A 200 whose JSON is not the answer asked for.
        case notUnderstood
    }

    public let code: Code
    public let message: String
    /// The HTTP status, when there was an answer.
    public let status: Int?
    /// The service's own `error.message`, when it sent one.
    public let serviceMessage: String?

    init(_ code: Code, _ message: String, status: Int? = nil, serviceMessage: String? = nil) {
        self.code = code
        self.message = message
        self.status = status
        self.serviceMessage = serviceMessage
    }

    public var description: String { message }
}
