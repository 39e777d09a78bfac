import Dispatch
import FoundationEssentials
import Glibc
import JSON
import Synchronization

/// One headless Chromium, driven over the DevTools protocol on a pipe
/// (`--remote-debugging-pipe`: commands go in on the browser's fd 3, answers and events
/// come out on its fd 4, each a JSON text ended by a NUL byte). Started on first need,
/// started again after it dies or is killed (``kill()``); the one owner of the process,
/// its pipes and its profile directory.
///
/// Everything the browser could reach on its own goes nowhere: its proxy is a closed port
/// on 127.0.0.1 (loopback included), so the only requests that leave it are those the
/// renderer fulfils itself (``PageRender``), through the crawler's own client.
public final class Browser: Sendable {
    public struct Configuration: Sendable {
        /// The Chromium executable; found on `PATH` (`chromium`, `chromium-browser`,
        /// `google-chrome`) or in `SEARCHLIGHT_CHROMIUM` when nil.
        public var executable: String?
        /// A DevTools message larger than this is a fault: the browser is killed.
        public var maximumMessageBytes = 64 << 20
        /// The browser and its renderers together (proportional set size); past it the
        /// browser is started again once its renders end.
        public var maximumResidentBytes = 1024 << 20
        /// The bound that holds during a render, looked at every quarter of a second: past it
        /// the page being rendered ends as `render-too-large` and the browser is killed there
        /// and then (`ArrayBuffer`s live outside the script heap's limit, so a page can
        /// otherwise take gigabytes). What a page allocates in a quarter second is the overshoot.
        public var hardResidentBytes = 1536 << 20
        /// V8's old-space limit in each renderer: a script that allocates without end dies
        /// there, not in the machine.
        public var scriptHeapMegabytes = 512

        public init() {}
    }

    public enum Failure: Error, Sendable, Equatable {
        /// No Chromium to start, or it would not start.
        case unavailable(String)
        /// The browser went away (died, or was killed) before answering.
        case gone
        /// No answer in time.
        case timeout
        /// The browser answered with an error.
        case refused(String)
    }

    /// An event for a session: its method and parameters.
    typealias EventHandler = @Sendable (_ method: String, _ params: JSONValue) -> Void

    private final class Waiter: Sendable {
        let done = DispatchSemaphore(value: 0)
        let answer = Mutex<Result<JSONValue, Failure>?>(nil)
    }

    private struct Running {
        var pid: pid_t
        /// Where commands are written; closed when the browser is stopped.
        var commands: Int32
        /// Where answers and events are read; the reading thread's, which closes it.
        var events: Int32
        var generation: Int
        var profile: String
    }

    private struct State {
        var running: Running?
        var generation = 0
        var nextID = 0
        var waiters: [Int: Waiter] = [:]
        var sessions: [String: EventHandler] = [:]
        var starts = 0
    }

    public let configuration: Configuration
    private let state = Mutex(State())
    private let writing = Mutex(())

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    deinit {
        kill()
    }

    /// How many times a browser was started (the first start and every restart).
    public var starts: Int { state.withLock { $0.starts } }

    /// The browser's process id while it runs.
    public var processID: pid_t? { state.withLock { $0.running?.pid } }

    // MARK: commands

    /// Sends one command to the browser of `generation` (``start()``'s) and waits for its
    /// answer; ``Failure/gone`` when that browser is no longer the one running.
    func send(_ method: String, _ params: JSONObject = JSONObject([]), session: String? = nil, generation: Int, timeout: Double) throws(Failure) -> JSONValue {
        let (id, commands, waiter) = try register(generation)
        var fields: [(String, JSONValue)] = [("id", JSONValue(id)), ("method", .string(method)), ("params", .object(params))]
        if let session { fields.append(("sessionId", .string(session))) }
        var bytes = JSONWriter.bytes(.object(JSONObject(fields)))
        bytes.append(0)
        let written = writing.withLock { _ in Self.writeAll(commands, bytes) }
        if !written { finish(id, .failure(.gone)) }
        if waiter.done.wait(timeout: .now() + max(0.001, timeout)) == .timedOut {
            state.withLock { _ = $0.waiters.removeValue(forKey: id) }
            return try waiter.answer.withLock { $0 ?? .failure(.timeout) }.get()
        }
        return try waiter.answer.withLock { $0 ?? .failure(.gone) }.get()
    }

    /// Events for `session` go to `handler` (on the browser's reading thread: it must not block).
    func subscribe(session: String, _ handler: @escaping EventHandler) {
        state.withLock { $0.sessions[session] = handler }
    }

    func unsubscribe(session: String) {
        state.withLock { _ = $0.sessions.removeValue(forKey: session) }
    }

    private func register(_ generation: Int) throws(Failure) -> (Int, Int32, Waiter) {
        try state.withLock { state throws(Failure) -> (Int, Int32, Waiter) in
            guard let running = state.running, running.generation == generation else { throw Failure.gone }
            state.nextID += 1
            let waiter = Waiter()
            state.waiters[state.nextID] = waiter
            return (state.nextID, running.commands, waiter)
        }
    }

    private func finish(_ id: Int, _ answer: Result<JSONValue, Failure>) {
        guard let waiter = state.withLock({ $0.waiters.removeValue(forKey: id) }) else { return }
        waiter.answer.withLock { $0 = answer }
        waiter.done.signal()
    }

    // MARK: the process

    /// Starts the browser unless it runs; which browser runs (commands name it, so that none
    /// meant for one that died reaches the next).
    @discardableResult
    public func start() throws(Failure) -> Int {
        try state.withLock { state throws(Failure) -> Int in
            if let running = state.running { return running.generation }
            guard let executable = configuration.executable ?? Self.findExecutable() else {
                throw Failure.unavailable("no Chromium found: install Debian's chromium package, or set SEARCHLIGHT_CHROMIUM")
            }
            state.generation += 1
            let running = try Self.spawn(executable, configuration: configuration, generation: state.generation)
            state.running = running
            state.starts += 1
            let reading = running.generation
            let events = running.events
            // The reading loop blocks for the browser's life: a queue of its own.
            DispatchQueue(label: "searchlight.browser.events").async { [weak self] in
                Self.read(events, limit: self?.configuration.maximumMessageBytes ?? 0) { message in
                    self?.dispatch(message)
                }
                close(events)
                self?.ended(generation: reading)
            }
            return running.generation
        }
    }

    /// Kills the browser (its whole process group) if it runs; the next ``start()`` starts another.
    public func kill() {
        ended(generation: nil)
    }

    /// Kills the browser of `generation` if it is the one running.
    func kill(generation: Int) {
        ended(generation: generation, killing: true)
    }

    /// The browser went away (its pipe ended, or `generation` nil: it is killed): it is
    /// stopped, and every waiting command and every session is told. A pipe of an older
    /// browser than the one running changes nothing.
    private func ended(generation: Int?, killing: Bool = false) {
        let (waiters, sessions, running) = state.withLock { state -> ([Waiter], [EventHandler], Running?) in
            guard generation == nil || (state.running == nil && !killing) || state.running?.generation == generation else { return ([], [], nil) }
            let running = state.running
            state.running = nil
            defer { state.waiters.removeAll() }
            return (Array(state.waiters.values), Array(state.sessions.values), running)
        }
        if let running { Self.stop(running) }
        for waiter in waiters {
            waiter.answer.withLock { $0 = .failure(.gone) }
            waiter.done.signal()
        }
        for session in sessions { session("Browser.gone", .null) }
    }

    private func dispatch(_ message: [UInt8]) {
        switch DevToolsMessage(message) {
        case .answer(let id, .success(let result)):
            finish(id, .success(result))
        case .answer(let id, .failure(let refusal)):
            finish(id, .failure(.refused(refusal.message)))
        case .event(let session, let method, let params):
            let handler = state.withLock { $0.sessions[session] }
            handler?(method, params)
        case nil:
            return
        }
    }

    /// The memory of the browser and every process it started (its process group), each
    /// process's proportional set size — shared pages divided among the processes sharing
    /// them, as the sum of RSS would count Chromium's shared libraries once per process.
    public var residentBytes: Int {
        guard let pid = processID else { return 0 }
        let page = sysconf(Int32(_SC_PAGESIZE))
        var total = 0
        guard let directory = opendir("/proc") else { return 0 }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let process = Int32(name), let stat = try? String(contentsOfFile: "/proc/\(process)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // Fields after the command name: state ppid pgrp … rss is the 22nd of them.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 21, Int32(fields[2]) == pid, let pages = Int(fields[21]) else { continue }
            total += Self.proportionalBytes(process) ?? pages * page
        }
        return total
    }

    /// `Pss:` of `/proc/PID/smaps_rollup`, in bytes.
    private static func proportionalBytes(_ process: Int32) -> Int? {
        guard let rollup = try? String(contentsOfFile: "/proc/\(process)/smaps_rollup", encoding: .utf8),
            let line = rollup.split(separator: "\n").first(where: { $0.hasPrefix("Pss:") }),
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return nil }
        return kilobytes * 1024
    }

    /// The browser has grown past its memory bound.
    public var isOverweight: Bool { residentBytes > configuration.maximumResidentBytes }

    /// The browser has grown past the bound that holds during a render.
    public var isPastHardBound: Bool { residentBytes > max(configuration.hardResidentBytes, configuration.maximumResidentBytes) }

    // MARK: process plumbing

    static func findExecutable() -> String? {
        if let chosen = getenv("SEARCHLIGHT_CHROMIUM").map({ String(cString: $0) }), !chosen.isEmpty { return chosen }
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            for name in ["chromium", "chromium-browser", "google-chrome", "chrome"] {
                let candidate = "\(directory)/\(name)"
                if access(candidate, X_OK) == 0 { return candidate }
            }
        }
        return nil
    }

    /// The flags: headless, a throwaway profile, nothing fetched behind the renderer's back
    /// (a dead proxy for everything, loopback included; no background networking, no
    /// WebRTC outside the proxy), no images, a bounded script heap.
    static func arguments(profile: String, configuration: Configuration) -> [String] {
        var arguments = [
            "--headless", "--remote-debugging-pipe", "--user-data-dir=\(profile)", "--no-first-run", "--no-default-browser-check",
            "--disable-gpu", "--disable-dev-shm-usage", "--disable-extensions", "--disable-background-networking", "--disable-sync",
            "--disable-default-apps", "--disable-component-update", "--disable-domain-reliability", "--disable-breakpad",
            "--disable-client-side-phishing-detection", "--mute-audio", "--hide-scrollbars", "--no-pings", "--dns-prefetch-disable",
            "--proxy-server=http://127.0.0.1:9", "--proxy-bypass-list=<-loopback>", "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
            "--blink-settings=imagesEnabled=false", "--js-flags=--max-old-space-size=\(configuration.scriptHeapMegabytes)",
        ]
        // Chromium's sandbox cannot run as root; as any other user it stays on.
        arguments.append("about:blank")
        return arguments
    }

    private static func spawn(_ executable: String, configuration: Configuration, generation: Int) throws(Failure) -> Running {
        // A write to a pipe whose reader has gone must fail with EPIPE, not end the process.
        signal(SIGPIPE, SIG_IGN)
        _ = abandonedProfilesRemoved
        var template = Array((BrowserProfiles.directory + "/" + BrowserProfiles.prefix + "XXXXXX").utf8CString)
        guard let profilePointer = mkdtemp(&template) else { throw Failure.unavailable("cannot make a profile directory") }
        let profile = String(cString: profilePointer)
        BrowserProfiles.claim(profile)
        let sandbox = BrowserSandbox.current
        sandbox.prepare(profile: profile)
        var toBrowser: [Int32] = [-1, -1]
        var fromBrowser: [Int32] = [-1, -1]
        guard pipe(&toBrowser) == 0 else { throw Failure.unavailable("pipe: \(errno)") }
        guard pipe(&fromBrowser) == 0 else {
            close(toBrowser[0]); close(toBrowser[1])
            throw Failure.unavailable("pipe: \(errno)")
        }
        // Our ends are not inherited (the browser's are moved to 3 and 4 below).
        _ = fcntl(toBrowser[1], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fromBrowser[0], F_SETFD, FD_CLOEXEC)
        // Above 4, so that moving one to 3 cannot overwrite the other.
        let browserReads = fcntl(toBrowser[0], F_DUPFD_CLOEXEC, 10)
        let browserWrites = fcntl(fromBrowser[1], F_DUPFD_CLOEXEC, 10)
        close(toBrowser[0]); close(fromBrowser[1])
        defer { close(browserReads); close(browserWrites) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, browserReads, 3)
        posix_spawn_file_actions_adddup2(&actions, browserWrites, 4)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attributes, 0)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)

        let (program, programArguments) = sandbox.command(executable, arguments(profile: profile, configuration: configuration))
        let argv = ([program] + programArguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        // The browser's home and temporary files are its profile's (removed with it): its
        // user may have no home, and nothing of it is left in the system's temporary folder.
        var environment = ProcessInfo.processInfo.environment.filter { $0.key != "HOME" && $0.key != "TMPDIR" }
        environment["HOME"] = profile
        environment["TMPDIR"] = profile
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, program, &actions, &attributes, argv, envp)
        guard result == 0 else {
            close(toBrowser[1]); close(fromBrowser[0])
            removeTree(profile)
            throw Failure.unavailable("cannot start \(executable): \(String(cString: strerror(result)))")
        }
        return Running(pid: pid, commands: toBrowser[1], events: fromBrowser[0], generation: generation, profile: profile)
    }

    /// Profile folders of crawlers that died, removed once per process before its first browser.
    private static let abandonedProfilesRemoved: Int = BrowserProfiles.removeAbandoned()

    private static func stop(_ running: Running) {
        Glibc.kill(-running.pid, SIGKILL)
        close(running.commands)
        var status: Int32 = 0
        while waitpid(running.pid, &status, 0) < 0, errno == EINTR {}
        removeTree(running.profile)
    }

    private static func removeTree(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += written
            }
            return true
        }
    }

    /// Reads NUL-ended messages until the pipe ends (or a message passes `limit`).
    private static func read(_ fd: Int32, limit: Int, _ deliver: ([UInt8]) -> Void) {
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            var start = 0
            for index in 0..<count where chunk[index] == 0 {
                pending.append(contentsOf: chunk[start..<index])
                deliver(pending)
                pending.removeAll(keepingCapacity: pending.count < 1 << 20)
                start = index + 1
            }
            pending.append(contentsOf: chunk[start..<count])
            guard pending.count <= limit else { return }
        }
    }
}
