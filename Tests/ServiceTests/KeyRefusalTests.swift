import Foundation
import HTTPTypes
import JSON
import PostgresStore
import SearchlightTestSupport
import Service
import StoreSeams
import Testing

/// A 401 says which of its causes it is (issue 56): no key, a header that is not `Bearer`, a
/// key this service does not accept — and "revoked" only to whoever holds the key's secret.
@Suite struct KeyRefusalTests {
    @Test(arguments: ServiceBackend.allCases) func eachRefusalSaysWhy(_ backend: ServiceBackend) throws {
        let running = try RunningService(backend: backend)
        defer { running.stop() }
        let token = try running.key(owner: "app", domain: "app.example")
        let body: JSONValue = ["items": [["uniqueIdentifier": "a", "title": "Lemon tart", "webURL": "https://app.example/a"]]]
        func refusal(key: String? = nil, headers: [HTTPField] = []) -> (status: Int, code: String?, message: String) {
            let reply = running.call("POST", "/v1/items", json: body, key: key, headers: headers)
            return (reply.status, reply.json?["error"]?["code"]?.stringValue, reply.json?["error"]?["message"]?.stringValue ?? reply.text)
        }
        #expect(running.call("POST", "/v1/items", json: body, key: token).status == 200)
        let missing = refusal()
        #expect(missing.status == 401 && missing.code == "unauthorized" && missing.message.contains("needs an API key"), "\(missing)")
        let notBearer = refusal(headers: [HTTPField("Authorization", "Token " + token)])
        #expect(notBearer.status == 401 && notBearer.message.contains("must be `Bearer <key>`"), "\(notBearer)")
        let (id, secret) = try #require(APIKey.parse(token: token))
        let wrong = token.replacingOccurrences(of: secret, with: String(secret.reversed()))
        #expect(wrong != token)
        let wrongSecret = refusal(key: wrong)
        #expect(wrongSecret.status == 401 && wrongSecret.code == "invalid-key", "\(wrongSecret)")

        if let url = running.storeURL {
            #expect(try PostgresKeyStore(try SharedStore(url: url)).revokeKey(id: id))
        } else {
            #expect(try ServiceStore(path: running.service.configuration.storePath).revokeKey(id: id))
        }
        let revoked = refusal(key: token)
        #expect(revoked.status == 401 && revoked.code == "key-revoked" && revoked.message.contains("revoked on"), "\(revoked)")
        let guessed = refusal(key: wrong)
        #expect(guessed.code == "invalid-key", "a wrong secret learns nothing of the revocation: \(guessed)")
    }
}
