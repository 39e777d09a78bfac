import HTTPTypes
import Testing

@Suite struct HTTPTypesTests {
    /// RFC 9110 §5.1: field names compare without case; values keep theirs.
    @Test func fieldNamesAreCaseInsensitive() {
        let fields = [HTTPField("Content-Type", "text/HTML"), HTTPField("set-cookie", "a=1"), HTTPField("Set-Cookie", "b=2")]
        #expect(fields.first("content-type") == "text/HTML")
        #expect(fields.all("SET-COOKIE") == ["a=1", "b=2"])
        #expect(fields.first("Content-Typ") == nil)
        #expect(!HTTPField("Straße", "").hasName("STRASSE"), "only ASCII letters fold")
    }

    @Test func reasonPhrases() {
        #expect(HTTPStatus.reason(200) == "OK")
        #expect(HTTPStatus.reason(404) == "Not Found")
        #expect(HTTPStatus.reason(429) == "Too Many Requests")
        #expect(!HTTPStatus.reason(599).isEmpty, "an unknown code still gets a phrase")
    }
}
