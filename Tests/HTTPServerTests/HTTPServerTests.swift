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

    /// Descriptors numbered past select()'s 1,024 (a process holding many connections)
    /// are served: both threading modes poll.
    @Test func socketsPastSelectsLimitAreServed() throws {
        guard RawConnection.raiseFileLimit() > 1_300 else { return }
        let held = (0..<1_100).map { _ in open("/dev/null", O_RDONLY) }
        defer { for descriptor in held where descriptor >= 0 { close(descriptor) } }
        #expect(held.allSatisfy { $0 >= 0 })
        let server = try HTTPServer { _ in .text("ok\n") }
        defer { server.stop() }
        let response = exchange(server, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(response.hasPrefix("HTTP/1.1 200"), "\(response)")
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

    /// RFC 9112 §6.3: a message whose framing is ambiguous is refused and its connection
    /// closed, so the bytes after it are never read as a second request (smuggling behind
    /// a proxy that reads the other length).
    @Test func ambiguousFramingIsRefusedAndTheConnectionClosed() throws {
        let paths = Mutex<[String]>([])
        let server = try HTTPServer { request in
            paths.withLock { $0.append(request.path) }
            return .text("handled \(request.path)\n")
        }
        defer { server.stop() }
        let smuggled = "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n"
        let cases = [
            "POST /two HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 45\r\n\r\nhello" + smuggled,
            "POST /same HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello" + smuggled,
            "POST /both HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled,
            "POST /list HTTP/1.1\r\nHost: x\r\nContent-Length: 5, 45\r\n\r\nhello" + smuggled,
        ]
        for request in cases {
            let connection = try #require(RawConnection(port: server.port))
            connection.send(request)
            let answer = connection.receive(timeout: 10)
            #expect(answer.hasPrefix("HTTP/1.1 400"), "\(request.prefix(40)): \(answer.prefix(60))")
            // (libmicrohttpd answers a malformed length itself, with its own page.)
            #expect(!answer.contains("handled") && answer.contains("Connection: close"), "refused, then the connection closes: \(answer)")
            #expect(connection.isClosedByPeer)
        }
        #expect(paths.withLock { $0 }.isEmpty, "no handler ran, least of all for /smuggled")
        #expect(exchange(server, "POST /fine HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello").hasSuffix("handled /fine\n"))
    }

    /// A busy port is named as busy, not blamed on TLS nobody asked for (issue 56).
    @Test func aBusyPortSaysSo() throws {
        let first = try HTTPServer { _ in .text("first\n") }
        defer { first.stop() }
        var configuration = HTTPServer.Configuration()
        configuration.port = first.port
        do {
            let second = try HTTPServer(configuration: configuration) { _ in .text("second\n") }
            second.stop()
            Issue.record("a second server started on a port in use")
        } catch {
            #expect(error.message.contains("in use: another process listens there"), "\(error.message)")
            #expect(!error.message.contains("TLS"))
        }
    }

    /// Bodies count against the budget as their bytes arrive: clients that declare large
    /// bodies and send a byte hold a byte each, and another client's body still fits.
    @Test func aDeclaredLengthReservesNothing() throws {
        var configuration = HTTPServer.Configuration()
        configuration.maximumBodyBytes = 1000
        configuration.maximumBufferedBodyBytes = 1000
        let server = try HTTPServer(configuration: configuration) { request in .text("got \(request.body.count)\n") }
        defer { server.stop() }
        var slow: [RawConnection] = []
        for _ in 0..<8 {
            let connection = try #require(RawConnection(port: server.port))
            connection.send("POST /slow HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nx")
            slow.append(connection)
        }
        let answer = exchange(server, "POST /quick HTTP/1.1\r\nHost: x\r\nContent-Length: 900\r\nConnection: close\r\n\r\n"
            + String(repeating: "y", count: 900))
        #expect(answer.hasSuffix("got 900\n"), "\(answer.prefix(80))")
        #expect(server.bufferedBodyBytes <= 8, "the slow ones hold what they sent: \(server.bufferedBodyBytes)")
        slow.removeAll()
    }

    /// Anonymous bodies have their own small budget and a few uploads per network; a
    /// principal's bodies draw on the shared budget up to its share.
    @Test func anonymousAndPrincipalBudgetsAreApart() throws {
        var configuration = HTTPServer.Configuration()
        configuration.maximumBodyBytes = 1000
        configuration.maximumBufferedBodyBytes = 2000
        configuration.maximumBufferedBodyBytesPerPrincipal = 1000
        configuration.maximumAnonymousBodyBytes = 500
        configuration.maximumAnonymousUploadsPerNetwork = 2
        let server = try HTTPServer(configuration: configuration, admission: { request in
            let who = request.header("X-Who") ?? ""
            return .accept(who.isEmpty ? BodyAllowance(holder: .anonymous(network: request.remoteAddress ?? "")) : BodyAllowance(holder: .principal(who)))
        }) { request in .text("got \(request.body.count)\n") }
        defer { server.stop() }
        let first = try #require(RawConnection(port: server.port))
        first.send("POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 400\r\n\r\n" + String(repeating: "a", count: 300))
        let second = try #require(RawConnection(port: server.port))
        second.send("POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 400\r\n\r\nb")
        // Both uploads are in progress once their bytes are held.
        let deadline = Date().addingTimeInterval(30)
        while server.bufferedBodyBytes < 301, Date() < deadline { usleep(5_000) }
        #expect(server.bufferedBodyBytes == 301)
        #expect(exchange(server, "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nConnection: close\r\n\r\nabcd").hasPrefix("HTTP/1.1 503"),
                "a third upload from the network waits its turn")
        let other = try #require(RawConnection(port: server.port, from: "127.0.0.2"))
        other.send("POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 300\r\nConnection: close\r\n\r\n" + String(repeating: "c", count: 300))
        #expect(other.receive(timeout: 10).hasPrefix("HTTP/1.1 503"), "past the anonymous budget")
        let tenant = exchange(server, "POST /t HTTP/1.1\r\nHost: x\r\nX-Who: t1\r\nContent-Length: 900\r\nConnection: close\r\n\r\n"
            + String(repeating: "t", count: 900))
        #expect(tenant.hasSuffix("got 900\n"), "a principal's body is not held back by anonymous ones: \(tenant.prefix(80))")
        _ = (first, second)
    }

    @Test func admissionAnswersBeforeTheBodyIsSent() throws {
        let server = try HTTPServer(admission: { request in
            request.header("Authorization") == nil ? .answer(.text("who are you?\n", status: 401)) : .accept(.standard)
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

    /// A response is written after its handler returns: a stop must wait until it is sent,
    /// not only until the handler is done, or a large answer is cut off.
    @Test func stoppingLetsAnAnsweredRequestsResponseGoOutWhole() throws {
        let started = DispatchSemaphore(value: 0)
        let body = String(repeating: "x", count: 16 << 20) + "end\n"
        let server = try HTTPServer { _ in
            started.signal()
            return .text(body)
        }
        let connection = try #require(RawConnection(port: server.port))
        connection.send("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        started.wait()
        let stopped = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            server.stop(gracePeriod: 30)
            stopped.signal()
        }
        let received = connection.receive(timeout: 60)
        stopped.wait()
        let answered = received.hasPrefix("HTTP/1.1 200"), whole = received.hasSuffix("\r\n\r\n" + body)
        #expect(answered && whole, "the whole answer: \(received.utf8.count) bytes received of \(body.utf8.count) in the body")
    }
}
