/// Which URLs a result's "open in the app" button may hold. A deep link is an absolute
/// URI (RFC 3986 scheme, then `:`), at most 2,048 bytes, with no spaces or control
/// characters, whose scheme is
/// - `http` or `https` (universal links and app links), or
/// - an app's own scheme: two to 64 characters of letters, digits, `+`, `-` and `.`,
///   starting with a letter (`recipebox`, `fb123456`, `com.example.app`), that no browser
///   or operating system handles itself.
///
/// Schemes a browser or OS handles are refused by family: script (`javascript`, `data`,
/// `vbscript`, `blob`, `filesystem`, `view-source`, `jar`…), local files (`file`, `res`,
/// `resource`, `smb`, `nfs`, `afp`, `mhtml`, one-letter drive names such as `c:`), the
/// browsers' own pages (`about`, `chrome*`, `edge`, `moz-*`, `opera`…), and operating-system
/// handlers (`ms-*` such as `ms-msdt`, `search-ms`, `shell`, `intent`, `itms-services`,
/// `x-apple-*`, `prefs`, `app-prefs`, `tel`, `sms`, `mailto`, `ftp`, `ldap`…): a button on
/// a shared index must never run script, open local files or start a system tool.
public enum DeepLinkRule {
    /// Whether `link` may be an item's deep link (a scheme an app may claim, not a script or file URL).
    public static func isAcceptable(_ link: String) -> Bool {
        let bytes = link.utf8
        guard bytes.count <= SearchableItem.Limits.urlBytes, let colon = bytes.firstIndex(of: UInt8(ascii: ":")),
            !bytes.contains(where: { $0 <= 0x20 || $0 == 0x7F })
        else { return false }
        let scheme = String(decoding: bytes[..<colon], as: UTF8.self).lowercased()
        return isAcceptable(scheme: scheme)
    }

    /// Whether `scheme` (lower case, without the colon) passes the rule above.
    public static func isAcceptable(scheme: String) -> Bool {
        if scheme == "http" || scheme == "https" { return true }
        let bytes = Array(scheme.utf8)
        guard (2...64).contains(bytes.count), let first = bytes.first, (0x61...0x7A).contains(first),
            bytes.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E })
        else { return false }
        if reserved.contains(scheme) { return false }
        return !reservedPrefixes.contains { scheme.hasPrefix($0) }
    }

    /// Schemes browsers and operating systems handle themselves (WHATWG's special and
    /// fetch schemes, IANA's registered handlers that run code, open files or tools).
    static let reserved: Set<String> = [
        // script and documents made up in place
        "javascript", "vbscript", "livescript", "data", "blob", "filesystem", "view-source", "jar", "wyciwyg", "mhtml", "mk",
        // local and network files
        "file", "res", "resource", "smb", "nfs", "afp", "cifs", "webdav", "dav", "ftp", "sftp", "tftp", "ldap", "ldaps",
        // browsers' own pages
        "about", "edge", "opera", "brave", "vivaldi", "safari", "firefox", "ie", "browser",
        // operating-system handlers and tools
        "shell", "search", "search-ms", "intent", "itms-services", "prefs", "app-prefs", "settings", "tel", "telprompt", "sms", "mms",
        "mailto", "facetime", "facetime-audio", "callto", "skype", "ssh", "telnet", "rlogin", "vnc", "rdp", "gopher", "news", "nntp",
        "irc", "xmpp", "sip", "sips", "steam", "its", "help", "hcp", "cdl", "ws", "wss", "urn", "cid", "mid", "javascripts",
    ]

    /// Whole families: Microsoft's protocol handlers (`ms-msdt`, `ms-settings`…), browser
    /// internals (`chrome`, `chrome-extension`, `moz-extension`…), Apple's private handlers.
    static let reservedPrefixes = ["ms-", "chrome", "moz-", "x-apple", "opera-", "edge-", "webkit-", "resource-", "shell-"]
}
