import JSON
import Render
import Testing

/// What the crawler reads from the browser's DevTools pipe, decoded without a browser: a
/// page's requests are read as hostile (issue 57's fuzz target runs the same code).
@Suite struct DevToolsMessageTests {
    @Test func answersAndEventsAreToldApart() throws {
        #expect(DevToolsMessage(Array(#"{"id":7,"result":{"value":1}}"#.utf8)) == .answer(id: 7, result: .success(["value": 1])))
        let refused = DevToolsMessage(Array(("{\"id\":3,\"error\":{\"message\":\"" + String(repeating: "x", count: 5000) + "\"}}").utf8))
        guard case .answer(3, .failure(let refusal)) = refused else { Issue.record("\(String(describing: refused))"); return }
        #expect(refusal.message.count == 200, "an error's message is cut")
        #expect(DevToolsMessage(Array(#"{"method":"Page.loadEventFired","sessionId":"S","params":{}}"#.utf8))
                == .event(session: "S", method: "Page.loadEventFired", params: [:]))
        #expect(DevToolsMessage(Array("not json".utf8)) == nil)
        #expect(DevToolsMessage(Array(#"{"neither":1}"#.utf8)) == nil)
    }

    @Test func aPausedRequestIsDecidedFromItsParameters() throws {
        let script = try JSONParser.parse(#"{"requestId":"r1","resourceType":"Script","request":{"url":"https://a.example/app.js","method":"GET","headers":{"Accept":"*/*"}}}"#)
        let request = try #require(PausedRequest(params: script))
        #expect(request.refusal == nil && request.headers.map(\.name) == ["Accept"])
        let image = try JSONParser.parse(#"{"requestId":"r2","resourceType":"Image","request":{"url":"https://a.example/a.png"}}"#)
        #expect(PausedRequest(params: image)?.refusal == .notNeeded)
        let post = try JSONParser.parse(#"{"requestId":"r3","resourceType":"XHR","request":{"url":"https://a.example/api","method":"POST"}}"#)
        #expect(PausedRequest(params: post)?.refusal == .notAllowed)
        let file = try JSONParser.parse(#"{"requestId":"r4","resourceType":"Fetch","request":{"url":"file:///etc/passwd"}}"#)
        #expect(PausedRequest(params: file)?.refusal == .notAllowed)
        let many = (0..<500).map { "\"h\($0)\":\"v\"" }.joined(separator: ",")
        let flood = try JSONParser.parse("{\"requestId\":\"r5\",\"resourceType\":\"Script\",\"request\":{\"url\":\"https://a.example/x.js\",\"headers\":{\(many)}}}")
        #expect(PausedRequest(params: flood)?.headers.count == PausedRequest.maximumHeaders)
        #expect(PausedRequest(params: try JSONParser.parse(#"{"resourceType":"Script"}"#)) == nil)
    }
}
