import Foundation
import HTTPServer
import Items
import JSON
import SearchIndex
@testable import Service
import ServiceAPI
import Testing

/// What a client reads of a server fault: a reference, not the fault.
@Suite struct APIErrorTests {
    @Test func aServerFaultShowsAReferenceNotItsDetail() throws {
        for error in [APIError(SearchIndexError(.database, "disk I/O error at /srv/secret/index.sqlite")),
                      APIError.internalError(CocoaError(.fileReadNoPermission, userInfo: [NSFilePathErrorKey: "/srv/secret/keys"]))] {
            #expect(error.status == 500 && error.code == "internal")
            #expect(!error.message.contains("/srv/secret"), "\(error.message)")
            #expect(error.message.contains("reference"))
            guard case .bytes(let body) = error.response.body else { Issue.record("no body"); continue }
            #expect(!String(decoding: body, as: UTF8.self).contains("secret"))
        }
        #expect(APIError(SearchIndexError(.invalidQuery, "the query is empty")).message == "the query is empty", "a client's mistake is told")
    }
}
