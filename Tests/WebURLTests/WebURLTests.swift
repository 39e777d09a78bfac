import Testing
@testable import WebURL

@Suite struct WebURLNormalFormTests {
    @Test(arguments: [
        ("HTTP://Example.COM:80/a/./b/../c?x=%7e&y=%2f#Frag", "http://example.com/a/c?x=~&y=%2F#Frag"),
        ("https://example.com:443", "https://example.com/"),
        ("https://example.com:8443/", "https://example.com:8443/"),
        ("http://Bücher.example/ä ö?q=ü", "http://xn--bcher-kva.example/%C3%A4%20%C3%B6?q=%C3%BC"),
        ("https://例子.测试/路径", "https://xn--fsqu00a.xn--0zwm56d/%E8%B7%AF%E5%BE%84"),
        ("http://[::1]:8080/x", "http://[::1]:8080/x"),
        ("http://example.com/%zz%", "http://example.com/%zz%"),
        ("http://example.com/a b?c d'e#f g`", "http://example.com/a%20b?c%20d%27e#f%20g%60"),
        ("http://0x7F.1/", "http://127.0.0.1/"),
        ("http://[0:0:0:0:0:ffff:7f00:1]/", "http://[::ffff:7f00:1]/"),
        ("http://example.com/a\"b<c>", "http://example.com/a%22b%3Cc%3E"),
        ("  https://example.com/trim  ", "https://example.com/trim"),
    ])
    func normalises(_ input: String, _ expected: String) throws {
        let url = try #require(WebURL(input))
        #expect(url.string == expected)
    }

    @Test(arguments: ["mailto:a@b.example", "javascript:alert(1)", "ftp://example.com/", "not a url", "", "http://", "http://192.168.0.257/", "http://foo.09/", "http://a\u{00A0}b/", "https://xn--/"])
    func rejectsWhatIsNotAnAbsoluteHTTPURL(_ input: String) {
        #expect(WebURL(input) == nil)
    }

    @Test func exposesItsParts() throws {
        let url = try #require(WebURL("https://user:pw@Shop.Example:8443/p/q?a=1&b=2#top"))
        #expect(url.scheme == "https")
        #expect(url.host == "shop.example")
        #expect(url.port == 8443)
        #expect(url.effectivePort == 8443)
        #expect(url.origin == "https://shop.example:8443")
        #expect(url.path == "/p/q")
        #expect(url.query == "a=1&b=2")
        #expect(url.fragment == "top")
        #expect(url.pathAndQuery == "/p/q?a=1&b=2")
        #expect(url.withoutFragment.string == "https://user:pw@shop.example:8443/p/q?a=1&b=2")
        #expect(url.replacingQuery("c=%7e").string == "https://user:pw@shop.example:8443/p/q?c=~")
        #expect(url.replacingQuery(nil).string == "https://user:pw@shop.example:8443/p/q")
        #expect(try #require(WebURL("http://example.com")).port == nil)
        #expect(String(url.pathUTF8) == "/p/q")
        #expect(String(try #require(WebURL("http://example.com/a/b#c")).pathUTF8) == "/a/b")
    }

    @Test func sameAuthorityMeansSameSchemeHostAndPort() throws {
        let url = try #require(WebURL("https://shop.example/a?q=1"))
        #expect(url.hasSameAuthority(as: try #require(WebURL("https://Shop.example:443/b/c"))))
        #expect(!url.hasSameAuthority(as: try #require(WebURL("http://shop.example/a?q=1"))))
        #expect(!url.hasSameAuthority(as: try #require(WebURL("https://shop.example:8443/a"))))
        #expect(!url.hasSameAuthority(as: try #require(WebURL("https://shop.exampl/a"))))
        #expect(!url.hasSameAuthority(as: try #require(WebURL("https://shop.example.org/a"))))
    }
}

@Suite struct URLResolutionTests {
    let base = WebURL("https://recipes.example/recipes/lemon-tart?x=1#f")!

    @Test(arguments: [
        ("/desserts", "https://recipes.example/desserts"),
        ("tart-2", "https://recipes.example/recipes/tart-2"),
        ("../about", "https://recipes.example/about"),
        ("?page=2", "https://recipes.example/recipes/lemon-tart?page=2"),
        ("#method", "https://recipes.example/recipes/lemon-tart?x=1#method"),
        ("", "https://recipes.example/recipes/lemon-tart?x=1"),
        ("//cdn.example/a.js", "https://cdn.example/a.js"),
        ("http://Other.Example:80/Up/../Down", "http://other.example/Down"),
        ("/a\tb\nc", "https://recipes.example/abc"),
        ("\\back\\slash?q=\\", "https://recipes.example/back/slash?q=\\"),
        ("/foo/%2e./%2e%2e/.%2e/%2e.bar", "https://recipes.example/..bar"),
        ("http:foo.com", "http://foo.com/"),
        ("https:foo.com", "https://recipes.example/recipes/foo.com"),
        ("/room/足球", "https://recipes.example/room/%E8%B6%B3%E7%90%83"),
        ("https://recipes.example", "https://recipes.example/"),
    ])
    func resolves(_ reference: String, _ expected: String) {
        #expect(URLResolver(base: base).resolve(reference)?.string == expected)
    }

    @Test(arguments: ["mailto:chef@recipes.example", "javascript:void(0)", "tel:+441234", "data:text/plain,hi", "ios-app://1/x/y"])
    func ignoresNonWebLinks(_ reference: String) {
        #expect(URLResolver(base: base).resolve(reference) == nil)
    }

    /// The fast paths (canonical absolute paths and URLs joined without the parser) must give
    /// exactly what the parser gives.
    @Test func fastPathsAgreeWithTheParser() throws {
        let pieces = ["/", "/a", "/a/b", "/a/b/", "/%41", "/%2f", "/%2F", "/a?b", "/a?b=c&d=e", "/a#f", "/a?b#f", "/./a", "/a/..",
                      "/a/../b", "/a b", "/~u", "/a:b@c", "/a;b=c", "/!$&'()*+,", "/a?x/y?z", "/a#x#y", "/é", "/%e2%82%ac", "/.a", "/a..",
                      "/%7E", "/a?%7e", "/a?q=%20", "/a?it's", "/a\\b", "/[x]|^", "/a?`{}", "/a#`", "/%2e/a", "/a/%2E%2e", "/a%", "/a%zz"]
        let hosts = ["https://site.test", "http://site.test:8080", "https://a-b.example", "http://x.y.z.example:443", "https://example.com.",
                     "http://1.2.3.4", "https://host:0080", "http://xn--bcher-kva.example", "http://0x7f.1", "https://a..b.example"]
        let resolver = URLResolver(base: base)
        var checked = 0
        for piece in pieces {
            let slow = URLParser.parse(piece.utf8, base: URLParser.parse(base.string.utf8, base: nil)).map(WebURL.init(record:))
            #expect(resolver.resolve(piece) == slow, "relative \(piece)")
            for host in hosts {
                let absolute = host + piece
                #expect(resolver.resolve(absolute) == URLParser.parse(absolute.utf8, base: nil).map(WebURL.init(record:)), "absolute \(absolute)")
                checked += 1
            }
        }
        #expect(checked == pieces.count * hosts.count)
    }
}
