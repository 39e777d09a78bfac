import Fetch
import HTTPTypes
import Synchronization
import Foundation
import HTTPServer
import SearchlightTestSupport
import Testing
import WebURL

@Suite(.serialized) struct HTTPClientTests {
    func client(allowPrivate: Bool = true, _ configure: (inout FetchConfiguration) -> Void = { _ in }) -> HTTPClient {
        var configuration = FetchConfiguration(userAgent: "Searchlightbot/test (+https://example.invalid/bot)")
        configuration.addressPolicy = allowPrivate ? .any : .publicOnly
        configure(&configuration)
        return HTTPClient(configuration: configuration)
    }

    @Test func fetchesAPageWithHeadersAndSendsOurUserAgent() throws {
        let web = try FixtureWeb()
        defer { web.stop() }
        web.route("site.test", "/hello") { request in
            HTTPServerResponse(status: 200, headers: [HTTPField("Content-Type", "text/html"), HTTPField("X-Robots-Tag", "noarchive"),
                                                      HTTPField("X-Seen-Agent", request.header("User-Agent") ?? "")],
                               body: .bytes(Array("<p>hi</p>".utf8)))
        }
        let http = client { $0.resolve = [web.resolveEntry("site.test")] }
        defer { http.shutdown() }
        var request = FetchRequest(url: web.origin("site.test") + "/hello")
        #expect(http.fetch(request).requestHeaderBlock.isEmpty, "kept only when asked for (it costs libcurl's debug callback)")
        request.recordsRequestHeaders = true
        let response = http.fetch(request)
        #expect(response.error == nil)
        #expect(response.status == 200)
        #expect(response.body == Array("<p>hi</p>".utf8))
        #expect(response.contentType == "text/html")
        #expect(response.headers.all("x-robots-tag") == ["noarchive"])
        #expect(response.headers.first("X-Seen-Agent")?.hasPrefix("Searchlightbot/") == true)
        #expect(response.remoteAddress == "127.0.0.1")
        #expect(response.requestHeaderBlock.hasPrefix("GET /hello HTTP/1.1"))
    }

    @Test func refusesLoopbackUnlessAllowed() throws {
        let web = try FixtureWeb()
        defer { web.stop() }
        web.page("site.test", "/", html: "secret")
        let http = client(allowPrivate: false) { $0.resolve = [web.resolveEntry("site.test")] }
        defer { http.shutdown() }
        // The name resolves to 127.0.0.1: caught at connect time, however it was named.
        let response = http.fetch(FetchRequest(url: web.origin("site.test") + "/"))
        #expect(response.error?.kind == .refusedAddress)
        #expect(response.error?.message.contains("127.0.0.1") == true)
        let direct = http.fetch(FetchRequest(url: "http://127.0.0.1:\(web.port)/"))
        #expect(direct.error?.kind == .refusedAddress)
    }

    @Test func enforcesTheBodyLimitOnEndlessBodies() throws {
        let web = try FixtureWeb()
        defer { web.stop() }
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 64 * 1024)
        web.route("site.test", "/endless") { _ in HTTPServerResponse(status: 200, body: .stream { chunk }) }
        let http = client {
            $0.resolve = [web.resolveEntry("site.test")]
            $0.maximumBodyBytes = 1 << 20
        }
        defer { http.shutdown() }
        let response = http.fetch(FetchRequest(url: web.origin("site.test") + "/endless"))
        #expect(response.error?.kind == .tooLarge)
        #expect(response.body.count <= 1 << 20)
    }

    @Test func timesOutOnASlowServer() throws {
        let web = try FixtureWeb()
        defer { web.stop() }
        web.route("site.test", "/slow") { _ in
            HTTPServerResponse(status: 200, body: .stream {
                usleep(300_000)
                return Array("x".utf8)
            })
        }
        let http = client {
            $0.resolve = [web.resolveEntry("site.test")]
            $0.timeout = 1
        }
        defer { http.shutdown() }
        let start = Date()
        let response = http.fetch(FetchRequest(url: web.origin("site.test") + "/slow"))
        #expect(response.error?.kind == .timeout)
        #expect(Date().timeIntervalSince(start) < 10)
    }

    @Test func followsRedirectsHopByHopAndStopsLoops() throws {
        let web = try FixtureWeb()
        defer { web.stop() }
        web.route("site.test", "/a") { _ in .redirect(to: "/b") }
        web.route("site.test", "/b") { _ in .redirect(to: "/c", status: 302) }
        web.page("site.test", "/c", html: "done")
        web.route("site.test", "/loop1") { _ in .redirect(to: "/loop2") }
        web.route("site.test", "/loop2") { _ in .redirect(to: "/loop1") }
        let http = client { $0.resolve = [web.resolveEntry("site.test")] }
        defer { http.shutdown() }
        let origin = web.origin("site.test")
        let (final, chain) = http.fetch(origin + "/a", maximumRedirects: 5)
        #expect(final.status == 200)
        #expect(chain == [origin + "/b", origin + "/c"])
        let (looped, _) = http.fetch(origin + "/loop1", maximumRedirects: 5)
        #expect(looped.error?.kind == .redirectLoop)
    }

    @Test func verifiesTLSAgainstAPrivateCA() throws {
        let web = try FixtureWeb(tls: true)
        defer { web.stop() }
        web.page("secure.web.test", "/", html: "tls ok")
        let url = web.origin("secure.web.test") + "/"
        let trusting = client {
            $0.resolve = [web.resolveEntry("secure.web.test")]
            $0.caCertificatesFile = TestCertificates.caFile
        }
        defer { trusting.shutdown() }
        let ok = trusting.fetch(FetchRequest(url: url))
        #expect(ok.status == 200)
        #expect(ok.body == Array("tls ok".utf8))
        let untrusting = client { $0.resolve = [web.resolveEntry("secure.web.test")] }
        defer { untrusting.shutdown() }
        #expect(untrusting.fetch(FetchRequest(url: url)).error?.kind == .tls)
    }

    @Test func theEnvironmentsProxyIsIgnoredSoTheAddressCheckSeesTheTarget() throws {
        let web = try FixtureWeb()
        defer { web.stop() }
        web.page("site.test", "/", html: "<title>inside</title>")
        let proxy = try ConnectProxy()
        defer { proxy.stop() }
        // libcurl reads these variables by itself; a crawler started with them set must
        // still refuse a loopback target rather than hand it to the proxy.
        let environment = ["http_proxy": proxy.url, "HTTPS_PROXY": proxy.url, "ALL_PROXY": proxy.url, "no_proxy": ""]
        let refused = try CommandRunner.run(["extract", web.origin("site.test") + "/", "--resolve", web.resolveEntry("site.test")],
                                            environment: environment)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("refused to connect to non-public address 127.0.0.1"), "\(refused.stderr)")
        let allowed = try CommandRunner.run(["extract", web.origin("site.test") + "/", "--resolve", web.resolveEntry("site.test"),
                                             "--allow-private"], environment: environment)
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(allowed.stdout.contains("inside"))
        #expect(proxy.requests.isEmpty, "the proxy from the environment was never used: \(proxy.requests)")
    }

    @Test func aGivenProxyConnectsToTheAddressCheckedHere() throws {
        let web = try FixtureWeb()
        defer { web.stop() }
        web.page("site.test", "/", html: "<title>through the proxy</title>")
        let proxy = try ConnectProxy()
        defer { proxy.stop() }
        let guarded = client(allowPrivate: false) {
            $0.proxy = proxy.url
            $0.resolve = [web.resolveEntry("site.test")]
        }
        defer { guarded.shutdown() }
        let refused = guarded.fetch(FetchRequest(url: web.origin("site.test") + "/"))
        #expect(refused.error?.kind == .refusedAddress, "the target resolves to 127.0.0.1, checked before the proxy is asked")
        #expect(proxy.requests.isEmpty)

        let open = client(allowPrivate: true) {
            $0.proxy = proxy.url
            $0.resolve = [web.resolveEntry("site.test")]
        }
        defer { open.shutdown() }
        let fetched = open.fetch(FetchRequest(url: web.origin("site.test") + "/"))
        #expect(fetched.status == 200, "\(fetched.error?.message ?? "")")
        #expect(String(decoding: fetched.body, as: UTF8.self).contains("through the proxy"))
        #expect(proxy.requests == ["CONNECT 127.0.0.1:\(web.port) HTTP/1.1"], "the proxy is told the checked address, not the name")
    }

    @Test func manyConcurrentRequestsOnOneLoop() throws {
        let web = try FixtureWeb()
        defer { web.stop() }
        for i in 0..<50 { web.page("site.test", "/p\(i)", html: "page \(i)") }
        let http = client {
            $0.resolve = [web.resolveEntry("site.test")]
            $0.maximumConnectionsPerHost = 4
        }
        defer { http.shutdown() }
        let results = Mutex<[Int: String]>([:])
        let group = DispatchGroup()
        for i in 0..<50 {
            group.enter()
            http.start(FetchRequest(url: web.origin("site.test") + "/p\(i)")) { response in
                results.withLock { $0[i] = String(decoding: response.body, as: UTF8.self) }
                group.leave()
            }
        }
        #expect(group.wait(timeout: .now() + 30) == .success)
        let bodies = results.withLock { $0 }
        #expect(bodies.count == 50)
        #expect((0..<50).allSatisfy { bodies[$0] == "page \($0)" })
        #expect(http.inFlight == 0)
    }

    @Test func invalidURLsAndShutdownFailCleanly() throws {
        let http = client()
        #expect(http.fetch(FetchRequest(url: "not a url")).error?.kind == .invalidURL)
        http.shutdown()
        #expect(http.fetch(FetchRequest(url: "http://127.0.0.1:1/")).error?.kind == .shutdown)
    }
}

@Suite struct AddressPolicyTests {
    @Test(arguments: ["127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "0.0.0.0", "100.64.0.1",
                      "224.0.0.1", "255.255.255.255", "::1", "::", "fe80::1", "fc00::1", "fd12::1", "ff02::1", "::ffff:127.0.0.1",
                      "::ffff:10.0.0.1", "64:ff9b::a9fe:a9fe", "2001:db8::1", "198.18.0.1"])
    func nonPublicAddressesAreRefused(_ text: String) throws {
        let address = try #require(IPAddress(text))
        #expect(!AddressPolicy.publicOnly.allows(address))
        #expect(AddressPolicy.any.allows(address))
    }

    @Test(arguments: ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8", "[2a00:1450:4001:81a::200e]"])
    func publicAddressesAreAllowed(_ text: String) throws {
        #expect(AddressPolicy.publicOnly.allows(try #require(IPAddress(text))))
    }

    @Test func formatsAddresses() {
        #expect(IPAddress("10.0.0.1")?.description == "10.0.0.1")
        #expect(IPAddress("[::1]")?.description == "::1")
        #expect(IPAddress("example.com") == nil)
    }
}
