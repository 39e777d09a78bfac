import HTTPServer
import JSON
import ServiceAPI

/// `GET /indexnow?url=&key=[&keyLocation=]` and `POST /indexnow` (indexnow.org): a site
/// tells the crawl which of its URLs changed (``IndexNowDesk``). 202 once the URLs are due
/// in the frontier — the crawl fetches them at its next run, under robots.txt and its
/// politeness — and the protocol's 4xx otherwise.
extension SearchService {
    static let indexNowParameters: Set<String> = ["url", "key", "keyLocation"]

    func indexNow(_ request: HTTPServerRequest) throws -> HTTPServerResponse {
        guard let desk = configuration.indexNow else {
            throw APIError.notFound("this server takes no IndexNow notices (start it with serve --indexnow)")
        }
        let submission: IndexNowSubmission
        if request.method == "POST" {
            submission = try IndexNowSubmission(body: try body(request, known: IndexNowSubmission.fields))
        } else {
            for item in request.rawQueryItems where !Self.indexNowParameters.contains(item.name) {
                throw APIError(400, "bad-request", "unknown parameter '\(item.name.prefix(64))': /indexnow takes url, key and keyLocation")
            }
            submission = try IndexNowSubmission { request.queryValue($0) }
        }
        return .json(try desk.receive(submission, from: ClientNetwork.forLimits(request.remoteAddress), now: configuration.clock()).json, status: 202)
    }
}
