import Foundation
import JSON
import TextUtilities

extension SearchableIndex {
    /// One API call: sent, retried on 429/503 as ``retry`` says, its JSON answer read; a
    /// status other than 2xx is a ``SearchlightError`` with the API's code, message and field.
    func call(_ method: String, _ path: String, body: JSONValue?) async throws(SearchlightError) -> JSONValue {
        guard let url = URL(string: server.absoluteString.trimmingTrailingSlash + path) else {
            throw SearchlightError(.badRequest, "\(server)\(path) is not a URL")
        }
        var request = TransportRequest(method: method, url: url, headers: [("Accept", "application/json")], timeout: timeout)
        if let key { request.headers.append(("Authorization", "Bearer " + key)) }
        if let body {
            request.body = Data(JSONWriter.string(body).utf8)
            request.headers.append(("Content-Type", "application/json"))
        }
        var attempt = 1
        while true {
            let response: TransportResponse
            do {
                try Task.checkCancellation()
                response = try await transport.send(request)
            } catch let error as SearchlightError {
                throw error
            } catch is CancellationError {
                throw SearchlightError(.cancelled, "\(method) \(path) was cancelled")
            } catch let error as URLError where error.code == .cancelled {
                throw SearchlightError(.cancelled, "\(method) \(path) was cancelled")
            } catch {
                throw SearchlightError(.unreachable, "asking \(server) failed: \(error)")
            }
            let answer = try? JSONParser.parse(bytes: [UInt8](response.body))
            if (200..<300).contains(response.status), let answer { return answer }
            if response.status == 204 { return .null }
            if let delay = retry.delay(afterAttempt: attempt, status: response.status, retryAfter: response.headers["retry-after"],
                                       jitter: Double.random(in: 0...1)) {
                do {
                    try await Task.sleep(nanoseconds: UInt64(delay * 1e9))
                } catch {
                    throw SearchlightError(.cancelled, "\(method) \(path) was cancelled while waiting to retry")
                }
                attempt += 1
                continue
            }
            throw Self.failure(status: response.status, answer: answer, server: server)
        }
    }

    /// The error an answer that is not a success says.
    static func failure(status: Int, answer: JSONValue?, server: URL) -> SearchlightError {
        if (200..<300).contains(status) { return SearchlightError(.notUnderstood, "\(server) answered \(status) without JSON", status: status) }
        let error = answer?["error"]
        // What the server says is kept short: a message of 1 KiB, a code and field of 128 bytes.
        let serverMessage = error?["message"]?.stringValue.map { $0.prefix(utf8Bytes: 1024) }
        let message = serverMessage ?? "HTTP \(status)"
        return SearchlightError(SearchlightError.code(status: status), "\(server) answered \(status): \(message)", status: status,
                                serverCode: error?["code"]?.stringValue.map { $0.prefix(utf8Bytes: 128) }, serverMessage: serverMessage,
                                field: error?["field"]?.stringValue.map { $0.prefix(utf8Bytes: 128) })
    }
}

extension String {
    fileprivate var trimmingTrailingSlash: String { hasSuffix("/") ? String(dropLast()) : self }
}
