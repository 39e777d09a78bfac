import Foundation
import Synchronization

/// Runs the built `searchlight` executable as a user would, capturing its output.
public struct CommandResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

public enum CommandRunner {
    /// The folder with the built products (`.build/debug`), where the test runner is.
    public static var productsDirectory: URL {
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = runner.deletingLastPathComponent()
        // The runner may sit inside an .xctest bundle folder.
        while folder.pathExtension == "xctest" || !FileManager.default.fileExists(atPath: folder.appendingPathComponent("searchlight").path),
            folder.path != "/"
        {
            folder = folder.deletingLastPathComponent()
        }
        return folder
    }

    public static var executable: URL { productsDirectory.appendingPathComponent("searchlight") }

    /// Runs `searchlight arguments…` (or another copy of it, `binary`) in `directory` and
    /// waits for it (at most `timeout` seconds).
    @discardableResult
    public static func run(_ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:], timeout: Double = 120,
                           binary: URL? = nil) throws -> CommandResult
    {
        let process = Process()
        process.executableURL = binary ?? executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Drain both pipes while the process runs, so a chatty child never blocks.
        let outData = Mutex<Data>(Data())
        let errData = Mutex<Data>(Data())
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            let data = out.fileHandleForReading.readDataToEndOfFile()
            outData.withLock { $0 = data }
        }
        DispatchQueue.global().async(group: group) {
            let data = err.fileHandleForReading.readDataToEndOfFile()
            errData.withLock { $0 = data }
        }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        group.wait()
        return CommandResult(
            status: process.terminationStatus,
            stdout: String(decoding: outData.withLock { $0 }, as: UTF8.self),
            stderr: String(decoding: errData.withLock { $0 }, as: UTF8.self))
    }
}

/// A `searchlight` process left running (`serve`, `ingest --watch`), with the first line it
/// printed; `stop()` ends it with SIGTERM and waits.
public struct RunningCommand {
    public let process: Process
    public let firstLine: String

    public func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}

extension CommandRunner {
    /// Starts `searchlight arguments…` and waits (at most `timeout` seconds) for its first line.
    public static func start(_ arguments: [String], timeout: Double = 30) throws -> RunningCommand {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = Pipe()
        try process.run()
        var text = ""
        let deadline = Date().addingTimeInterval(timeout)
        while !text.contains("\n"), Date() < deadline, process.isRunning {
            text += String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        }
        return RunningCommand(process: process, firstLine: String(text.split(separator: "\n").first ?? ""))
    }
}

/// A folder under the system's temporary directory, removed by `remove()`.
public struct TemporaryDirectory: Sendable {
    public let url: URL

    public init(_ name: String = "searchlight") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public var path: String { url.path }

    public func remove() { try? FileManager.default.removeItem(at: url) }
}
