import Foundation
import HTTPServer
import HTTPTypes
import SearchlightTestSupport
import Synchronization
import Testing

/// The server over real sockets: what a handler sees of a request, what a client gets
/// back, and the limits enforced before a handler runs.
@Suite struct HTTPServerTests {
    /// One request over a fresh connection; the whole response as text.
    func exchange(_ server: HTTPServer, _ request: String) -> String {
        guard let connection = RawConnection(port: server.port) else { return "" }
        connection.send(request)
        return connection.receive(timeout: 5)
    }

    @Test func theHandlerSeesTheRequestAsSent() throws {
        let seen = Mutex<HTTPServerRequest?>(nil)
        let server = try HTTPServer { request in
            seen.withLock { $0 = request }
            return .text("ok\n", status: 201)
        }
        defer { server.stop() }
        let response = exchange(server, "POST /a%20b/c?q=lemon+tart&q=%E7%9B%B4&flag HTTP/1.1\r\nHost: Example.test:8080\r\n"
            + "X-Thing: one\r\nx-thing: two\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello")
        #expect(response.hasPrefix("HTTP/1.1 201"))
        #expect(response.hasSuffix("\r\n\r\nok\n"))
        let request = try #require(seen.withLock { $0 })
        #expect(request.method == "POST")
        #expect(request.path == "/a%20b/c", "the path stays percent-encoded")
        #expect(request.queryValues("q") == ["lemon tart", "直"])
        #expect(request.queryValue("flag") == "")
        #expect(request.queryValue("absent") == nil)
        #expect(request.header("x-THING") == "one", "names compare case-insensitively; the first value wins")
        #expect(request.headers.all("X-Thing") == ["one", "two"])
        #expect(request.host == "example.test")
        #expect(request.body == Array("hello".utf8))
        #expect(request.target == "/a%20b/c?q=lemon tart&q=%E7%9B%B4&flag", "libmicrohttpd reads + as a space")
    }

    @Test func headersAndStreamedBodiesReachTheClient() throws {
        let server = try HTTPServer { request in
            if request.path == "/stream" {
                let pieces = Mutex(["one ", "two ", "three"])
                return HTTPServerResponse(status: 200, headers: [HTTPField("Content-Type", "text/plain")], body: .stream {
                    pieces.withLock { $0.isEmpty ? nil : Array($0.removeFirst().utf8) }
                })
            }
            return .redirect(to: "/stream", status: 308)
        }
        defer { server.stop() }
        let redirect = exchange(server, "GET /old HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(redirect.hasPrefix("HTTP/1.1 308"))
        #expect(redirect.contains("\r\nLocation: /stream\r\n"))
        let streamed = exchange(server, "GET /stream HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(streamed.lowercased().contains("transfer-encoding: chunked"))
        let body = streamed.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
        #expect(body == "4\r\none \r\n4\r\ntwo \r\n5\r\nthree\r\n0\r\n\r\n")
        let head = exchange(server, "HEAD /old HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(head.hasPrefix("HTTP/1.1 308") && head.hasSuffix("\r\n\r\n"), "HEAD has no body")
    }

    /// A declared length over the limit gets the refusal response without reading; a
    /// chunked body that grows past it reaches the handler flagged and empty.
    @Test func aBodyOverTheLimitIsRefused() throws {
        var configuration = HTTPServer.Configuration()
        configuration.maximumBodyBytes = 100
        configuration.refusal = { status, code, _ in .text("{\"error\":\"\(code)\"}", status: status, contentType: "application/json") }
        let handled = Atomic(0)
        let server = try HTTPServer(configuration: configuration) { request in
            if request.bodyTooLarge { return .text("too large, body \(request.body.count)", status: 413) }
            handled.add(1, ordering: .relaxed)
            return .text("handled")
        }
        defer { server.stop() }
        let declared = exchange(server, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 101\r\nConnection: close\r\n\r\n")
        #expect(declared.hasPrefix("HTTP/1.1 413"))
        #expect(declared.contains("application/json"))
        let chunked = exchange(server, "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            + "64\r\n" + String(repeating: "a", count: 100) + "\r\n1\r\nb\r\n0\r\n\r\n")
        #expect(chunked.hasPrefix("HTTP/1.1 413"), "a chunked body is counted as it arrives")
        #expect(chunked.hasSuffix("too large, body 0"), "the handler is told, and gets no partial body")
        let fits = exchange(server, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\nConnection: close\r\n\r\n" + String(repeating: "a", count: 100))
        #expect(fits.hasPrefix("HTTP/1.1 200"))
        #expect(handled.load(ordering: .relaxed) == 1)
        #expect(server.bufferedBodyBytes == 0, "refused and finished bodies give their bytes back")
    }

    @Test func admissionAnswersBeforeTheBodyIsSent() throws {
        let server = try HTTPServer(admission: { request in
            request.header("Authorization") == nil ? .text("who are you?\n", status: 401) : nil
        }) { request in
            .text("got \(request.body.count)\n")
        }
        defer { server.stop() }
        let connection = try #require(RawConnection(port: server.port))
        connection.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n")
        let refused = connection.receive(timeout: 5, until: "who are you?")
        #expect(refused.hasPrefix("HTTP/1.1 401"), "answered with no byte of the body sent")
        let admitted = exchange(server, "POST / HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer k\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc")
        #expect(admitted.hasSuffix("got 3\n"))
    }

    @Test func malformedRequestsGetA400AndNoHandler() throws {
        let handled = Atomic(0)
        let server = try HTTPServer { _ in
            handled.add(1, ordering: .relaxed)
            return .text("handled")
        }
        defer { server.stop() }
        let garbage = exchange(server, "GARBAGE\r\n\r\n")
        #expect(garbage.isEmpty || garbage.hasPrefix("HTTP/1.1 400"), "closed, or a 400: \(garbage)")
        #expect(exchange(server, "GET / HTTP/1.1\r\n\r\n").hasPrefix("HTTP/1.1 400"), "HTTP/1.1 needs a Host header")
        #expect(exchange(server, "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n").hasPrefix("HTTP/1.1 400"))
        #expect(handled.load(ordering: .relaxed) == 0)
    }

    @Test func stoppingWaitsForARequestInFlightThenRefusesConnections() throws {
        let started = DispatchSemaphore(value: 0)
        let server = try HTTPServer { _ in
            started.signal()
            Thread.sleep(forTimeInterval: 0.3)
            return .text("finished\n")
        }
        let port = server.port
        let connection = try #require(RawConnection(port: port))
        connection.send("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        started.wait()
        server.stop(gracePeriod: 5)
        #expect(connection.receive(timeout: 5).hasSuffix("finished\n"), "the request in flight was answered")
        #expect(RawConnection(port: port) == nil, "nothing listens any more")
    }
}
