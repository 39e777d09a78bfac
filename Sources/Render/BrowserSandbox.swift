import Foundation
import Glibc

/// How the browser is kept from the crawler's privileges: Chromium's own sandbox always
/// when the kernel allows it. A crawler running as root starts the browser as an
/// unprivileged user — `searchlight-browser` when the system has one (`useradd --system
/// searchlight-browser`), else `nobody` — through util-linux's `setpriv`, so that Chromium
/// can use its user-namespace sandbox (it refuses to as root); a renderer exploit in a crawled
/// page is then neither root nor outside the sandbox. Only where the kernel refuses user
/// namespaces (or `setpriv` is missing) does a root crawler run Chromium with
/// `--no-sandbox`, and ``warning`` says so on every run.
public enum BrowserSandbox: Sendable, Equatable {
    /// Not root: Chromium's sandbox as Chromium sets it up.
    case own
    /// Root: the browser as this user, in Chromium's sandbox.
    case unprivileged(user: String, uid: uid_t, gid: gid_t)
    /// Root, and no way to keep the sandbox: why.
    case none(String)

    /// The user a root crawler starts the browser as, first found.
    static let users = ["searchlight-browser", "nobody"]
    static let setpriv = "/usr/bin/setpriv"

    /// The plan for this process, decided once.
    public static let current: BrowserSandbox = decide(isRoot: geteuid() == 0, userNamespaces: userNamespacesAllowed(),
                                                       setprivExists: access(setpriv, X_OK) == 0, user: { name in
        getpwnam(name).map { ($0.pointee.pw_uid, $0.pointee.pw_gid) }
    })

    /// The decision, from the facts (pure).
    static func decide(isRoot: Bool, userNamespaces: Bool, setprivExists: Bool, user: (String) -> (uid_t, gid_t)?) -> BrowserSandbox {
        guard isRoot else { return .own }
        guard userNamespaces else { return .none("the kernel refuses unprivileged user namespaces, which Chromium's sandbox needs") }
        guard setprivExists else { return .none("\(setpriv) (util-linux) is missing, so the browser cannot be started as an unprivileged user") }
        for name in users {
            if let (uid, gid) = user(name), uid != 0 { return .unprivileged(user: name, uid: uid, gid: gid) }
        }
        return .none("no unprivileged user (\(users.joined(separator: ", "))) to start the browser as")
    }

    /// What a run prints when the browser will run without its sandbox; nil when it keeps it.
    public var warning: String? {
        guard case .none(let why) = self else { return nil }
        return "warning: Chromium runs as root without its sandbox (\(why)): a renderer exploit in a crawled page would run as root; "
            + "run the crawl as an ordinary user, or allow user namespaces (sysctl kernel.unprivileged_userns_clone=1)"
    }

    /// Whether this kernel lets an unprivileged process make a user namespace: the sysctls
    /// Debian and upstream use (absent means allowed).
    static func userNamespacesAllowed() -> Bool {
        func value(_ path: String) -> Int? {
            (try? String(contentsOfFile: path, encoding: .utf8)).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
        if let clone = value("/proc/sys/kernel/unprivileged_userns_clone"), clone == 0 { return false }
        if let maximum = value("/proc/sys/user/max_user_namespaces"), maximum == 0 { return false }
        if let restricted = value("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"), restricted != 0 { return false }
        return true
    }

    /// The program and arguments that start `executable` with `arguments` under this plan.
    func command(_ executable: String, _ arguments: [String]) -> (program: String, arguments: [String]) {
        switch self {
        case .own: (executable, arguments)
        case .unprivileged(_, let uid, let gid):
            (Self.setpriv, ["--reuid=\(uid)", "--regid=\(gid)", "--clear-groups", "--", executable] + arguments)
        case .none: (executable, ["--no-sandbox"] + arguments)
        }
    }

    /// Makes the profile folder the browser's user's (it writes there, and only there).
    func prepare(profile: String) {
        if case .unprivileged(_, let uid, let gid) = self { _ = chown(profile, uid, gid) }
    }
}

/// Profile folders (`/tmp/searchlight-browser-*`) a crawler left when it was killed: each
/// holds the pid of the process that made it, and one whose process is gone is removed the
/// next time a browser starts.
enum BrowserProfiles {
    static let directory = "/tmp"
    static let prefix = "searchlight-browser-"
    static let ownerFile = ".searchlight-owner"

    /// Marks `profile` as this process's.
    static func claim(_ profile: String) {
        try? String(getpid()).write(toFile: profile + "/" + ownerFile, atomically: false, encoding: .utf8)
    }

    /// Removes the profile folders whose owner process is gone; returns how many.
    @discardableResult
    static func removeAbandoned() -> Int {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return 0 }
        var removed = 0
        for name in names where name.hasPrefix(prefix) {
            let path = directory + "/" + name
            guard let text = try? String(contentsOfFile: path + "/" + ownerFile, encoding: .utf8),
                let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0
            else { continue }
            if kill(pid, 0) != 0, errno == ESRCH {
                try? FileManager.default.removeItem(atPath: path)
                removed += 1
            }
        }
        return removed
    }
}
