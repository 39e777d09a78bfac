import HTTPTypes
import Synchronization
import TextUtilities

/// What an ``HTTPServer/Admission`` decides from a request's head.
public enum AdmissionDecision: Sendable {
    /// Answer now; no byte of the body is read.
    case answer(HTTPServerResponse)
    /// Let the body come, charged to this allowance.
    case accept(BodyAllowance)
}

/// Whose budget a request body's bytes count against, and how large and slow it may be.
public struct BodyAllowance: Sendable {
    public enum Holder: Sendable, Hashable {
        /// The server's shared budget (fixture sites, requests no admission tells apart).
        case everyone
        /// One principal (an API key) within the shared budget, up to its share.
        case principal(String)
        /// A client without a key, by its network: the anonymous budget, a few uploads
        /// per network at once.
        case anonymous(network: String)
    }

    public var holder: Holder
    /// At most this many body bytes (the server's own limit when larger or nil).
    public var maximumBytes: Int?
    /// The body must have arrived this many seconds after the head (the server's
    /// deadline when longer or nil).
    public var maximumSeconds: Double?
    /// What admission learned from the head (the API key it checked), handed to the handler
    /// as ``HTTPServerRequest/admission`` so that it is not worked out twice.
    public var context: (any Sendable)?

    public init(holder: Holder, maximumBytes: Int? = nil, maximumSeconds: Double? = nil, context: (any Sendable)? = nil) {
        self.holder = holder
        self.maximumBytes = maximumBytes
        self.maximumSeconds = maximumSeconds
        self.context = context
    }

    public static let standard = BodyAllowance(holder: .everyone)
}

/// The bytes request bodies hold right now, charged as they arrive: a shared budget with
/// a share per principal, and a separate, small budget for anonymous clients with a limit
/// on uploads in progress per network. Nothing is reserved from a declared length, so a
/// client that declares 64 MB and sends one byte holds one byte.
final class BodyBudget: Sendable {
    private struct State {
        var shared = 0
        var anonymous = 0
        var principals: [String: Int] = [:]
        var uploads: [String: Int] = [:]
    }

    private let state = Mutex(State())
    private let sharedLimit: Int
    private let principalLimit: Int
    private let anonymousLimit: Int
    private let uploadsPerNetwork: Int

    init(_ configuration: HTTPServer.Configuration) {
        sharedLimit = configuration.maximumBufferedBodyBytes
        principalLimit = min(configuration.maximumBufferedBodyBytesPerPrincipal, configuration.maximumBufferedBodyBytes)
        anonymousLimit = configuration.maximumAnonymousBodyBytes
        uploadsPerNetwork = max(1, configuration.maximumAnonymousUploadsPerNetwork)
    }

    /// Bytes held by every body in progress.
    var total: Int { state.withLock { $0.shared + $0.anonymous } }

    /// Charges `bytes` to `holder`; false (and nothing charged) when that would pass a limit.
    func charge(_ bytes: Int, to holder: BodyAllowance.Holder) -> Bool {
        guard bytes > 0 else { return true }
        return state.withLock { state in
            switch holder {
            case .everyone:
                guard state.shared + bytes <= sharedLimit else { return false }
                state.shared += bytes
            case .principal(let name):
                let held = state.principals[name] ?? 0
                guard state.shared + bytes <= sharedLimit, held + bytes <= principalLimit else { return false }
                state.shared += bytes
                state.principals[name] = held + bytes
            case .anonymous:
                guard state.anonymous + bytes <= anonymousLimit else { return false }
                state.anonymous += bytes
            }
            return true
        }
    }

    func release(_ bytes: Int, from holder: BodyAllowance.Holder) {
        guard bytes > 0 else { return }
        state.withLock { state in
            switch holder {
            case .everyone: state.shared -= bytes
            case .principal(let name):
                state.shared -= bytes
                let left = (state.principals[name] ?? 0) - bytes
                state.principals[name] = left > 0 ? left : nil
            case .anonymous: state.anonymous -= bytes
            }
        }
    }

    /// An anonymous upload in progress for its network; false when the network has its
    /// share of them already. Other holders always get one.
    func takeUploadSlot(_ holder: BodyAllowance.Holder) -> Bool {
        guard case .anonymous(let network) = holder else { return true }
        return state.withLock { state in
            let current = state.uploads[network] ?? 0
            guard current < uploadsPerNetwork else { return false }
            state.uploads[network] = current + 1
            return true
        }
    }

    func releaseUploadSlot(_ holder: BodyAllowance.Holder) {
        guard case .anonymous(let network) = holder else { return }
        state.withLock { state in
            let left = (state.uploads[network] ?? 0) - 1
            state.uploads[network] = left > 0 ? left : nil
        }
    }
}

/// How a request says where its body ends (RFC 9112 §6): one valid `Content-Length`, or
/// `Transfer-Encoding` without one. Anything else lets a proxy and this server disagree
/// about where the next request starts (request smuggling), so it is refused and the
/// connection closed.
public enum MessageFraming {
    /// What is wrong with the request's framing headers, or nil.
    public static func problem(_ headers: [HTTPField]) -> String? {
        let lengths = headers.filter { $0.hasName("Content-Length") }
        let encodings = headers.filter { $0.hasName("Transfer-Encoding") }
        if lengths.count > 1 { return "more than one Content-Length header" }
        if let length = lengths.first {
            // RFC 9110 §8.6: Content-Length = 1*DIGIT.
            let value = length.value.trimmingASCIIWhitespace()
            guard !value.isEmpty, value.utf8.count <= 18, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                return "Content-Length is not a number"
            }
            if !encodings.isEmpty { return "both Content-Length and Transfer-Encoding" }
        }
        if encodings.count > 1 { return "more than one Transfer-Encoding header" }
        return nil
    }
}
