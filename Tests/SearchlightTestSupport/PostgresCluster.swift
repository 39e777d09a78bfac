import Foundation
import Glibc
import Synchronization

/// A real PostgreSQL for the tests of multi-machine mode: a throwaway cluster made with the
/// Debian packages' `initdb` in a temporary folder, on a free port of 127.0.0.1, run as
/// the `postgres` user when the tests run as root (PostgreSQL refuses root), stopped when
/// the test process exits. `SEARCHLIGHT_TEST_POSTGRES` (a server URL without a database,
/// `postgres://user@host:port`) uses a server that is already running instead.
public final class PostgresCluster: Sendable {
    public static let shared = Result { try PostgresCluster() }

    /// `postgres://user@127.0.0.1:PORT`, without a database.
    public let serverURL: String
    private let folder: String?
    private let bin: String?
    private let port: UInt16
    private let databases = Atomic<Int>(0)

    /// A cluster of the test's own, for tests that restart or stop the server.
    public static func own() throws -> PostgresCluster { try PostgresCluster(shared: false) }

    private init(shared: Bool = true) throws {
        if shared, let url = ProcessInfo.processInfo.environment["SEARCHLIGHT_TEST_POSTGRES"], !url.isEmpty {
            serverURL = url
            port = 0
            folder = nil
            bin = nil
            return
        }
        guard let bin = Self.binaries() else { throw ClusterError("PostgreSQL is not installed (apt-get install postgresql)") }
        self.bin = bin
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("searchlight-pg-\(UUID().uuidString)").path
        self.folder = folder
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let user = getuid() == 0 ? "postgres" : nil
        if let user { try Self.run("/bin/chown", [user, folder]) }
        let data = folder + "/data"
        try Self.run(bin + "/initdb", ["-D", data, "-U", "searchlight", "--auth=trust", "--encoding=UTF8", "--no-locale", "--no-sync"], as: user)
        let port = try Self.freePort()
        self.port = port
        serverURL = "postgres://searchlight@127.0.0.1:\(port)"
        try start()
        Self.registerStop(bin: bin, data: data, user: user)
    }

    /// Starts the server as a child and waits until it accepts connections. Not through
    /// `pg_ctl start`: the server it leaves behind inherits the descriptor Foundation's
    /// `Process` watches for the child's exit, so waiting for `pg_ctl` would never end.
    private func start() throws {
        guard let bin, let folder else { return }
        let server = Process()
        let arguments = [bin + "/postgres", "-D", folder + "/data", "-p", "\(port)", "-k", folder,
                         "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
                         "-c", "full_page_writes=off", "-c", "max_connections=200"]
        if getuid() == 0 {
            server.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
            server.arguments = ["-u", "postgres", "--"] + arguments
        } else {
            server.executableURL = URL(fileURLWithPath: arguments[0])
            server.arguments = Array(arguments.dropFirst())
        }
        if !FileManager.default.fileExists(atPath: folder + "/log") {
            _ = FileManager.default.createFile(atPath: folder + "/log", contents: nil)
        }
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: folder + "/log"))
        log.seekToEndOfFile()
        server.standardOutput = log
        server.standardError = log
        server.standardInput = FileHandle.nullDevice
        try server.run()
        for _ in 0..<300 {
            if (try? Self.run(bin + "/pg_isready", ["-q", "-h", "127.0.0.1", "-p", "\(port)"])) != nil { return }
            usleep(100_000)
        }
        throw ClusterError("PostgreSQL did not start: " + ((try? String(contentsOfFile: folder + "/log", encoding: .utf8)) ?? ""))
    }

    /// A new, empty database on the server: each test gets its own.
    public func newDatabase() throws -> String {
        let name = "searchlight_\(getpid())_\(databases.add(1, ordering: .relaxed).newValue)"
        try Self.run(bin.map { $0 + "/createdb" } ?? "/usr/bin/createdb", ["--maintenance-db=" + serverURL + "/postgres", name])
        return serverURL + "/" + name
    }

    /// Restarts the server (fast shutdown: connections are cut), as an operator's restart does.
    public func restart() throws {
        try stop()
        try start()
    }

    /// Stops the server (fast shutdown: connections are cut) until ``resume()``.
    public func stop() throws {
        guard let bin, let folder else { throw ClusterError("cannot stop a server this process did not start") }
        try Self.run(bin + "/pg_ctl", ["-D", folder + "/data", "-m", "fast", "-w", "stop"], as: getuid() == 0 ? "postgres" : nil)
    }

    /// Starts a server ``stop()`` stopped.
    public func resume() throws { try start() }

    // MARK: processes

    private static func binaries() -> String? {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted(by: >)
        return versions.map { "\(root)/\($0)/bin" }.first { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") }
    }

    @discardableResult
    private static func run(_ executable: String, _ arguments: [String], as user: String? = nil) throws -> (status: Int32, output: String) {
        let process = Process()
        if let user {
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
            process.arguments = ["-u", user, "--", executable] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        }
        // Output goes to a file, not a pipe: the server `pg_ctl start` leaves running would
        // hold a pipe's write end open, and reading to its end would wait for the server to stop.
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("searchlight-pg-run-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        guard process.terminationStatus == 0 else { throw ClusterError("\(executable) failed (\(process.terminationStatus)): \(text)") }
        return (process.terminationStatus, text)
    }

    private static func freePort() throws -> UInt16 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, size) == 0 && getsockname(descriptor, $0, &size) == 0 }
        }
        guard bound else { throw ClusterError("no free port") }
        return UInt16(bigEndian: address.sin_port)
    }

    /// What `atexit` needs to stop the servers: C function pointers capture nothing.
    private static let stopCommands = Mutex<[[String]]>([])

    private static func registerStop(bin: String, data: String, user: String?) {
        let command = [bin + "/pg_ctl", "-D", data, "-m", "immediate", "stop"]
        let first = stopCommands.withLock { commands in
            commands.append(user.map { ["/usr/sbin/runuser", "-u", $0, "--"] + command } ?? command)
            return commands.count == 1
        }
        guard first else { return }
        atexit {
            for arguments in PostgresCluster.stopCommands.withLock({ $0 }) {
                guard let executable = arguments.first else { continue }
                let process = Process()
                process.executableURL = URL(fileURLWithPath: executable)
                process.arguments = Array(arguments.dropFirst())
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                try? process.run()
                process.waitUntilExit()
            }
        }
    }
}

public struct ClusterError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
