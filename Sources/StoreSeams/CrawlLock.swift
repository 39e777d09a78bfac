import Foundation
import Glibc

/// The lock that keeps two crawl runs from writing one data folder at once: an exclusive
/// `flock` on `crawl.lock`, which the kernel releases when the holder exits however it
/// exits, so a lock left by a killed run is simply taken over. The file says who holds it.
public final class CrawlLock {
    public struct Holder: Sendable, Equatable {
        public var pid: Int32
        public var runID: String
        public var since: Date
    }

    private let descriptor: Int32
    /// Who held the lock before us, when it was left by a run that no longer exists.
    public let tookOverFrom: Holder?

    /// Takes the lock, or returns the current holder when another run has it.
    public static func acquire(path: String, runID: String) throws -> Result<CrawlLock, HolderError> {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw CrawlError("cannot open the lock file \(path): \(String(cString: strerror(errno)))") }
        let previous = readHolder(descriptor)
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            return .failure(HolderError(holder: previous))
        }
        let record = "\(getpid()) \(runID) \(Date().timeIntervalSince1970)\n"
        _ = ftruncate(descriptor, 0)
        _ = pwrite(descriptor, record, record.utf8.count, 0)
        return .success(CrawlLock(descriptor: descriptor, tookOverFrom: previous))
    }

    /// The run holding the lock at `path` now, or nil when none does.
    public static func holder(path: String) -> Holder? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_SH | LOCK_NB) != 0 else {
            flock(descriptor, LOCK_UN)
            return nil
        }
        return readHolder(descriptor) ?? Holder(pid: 0, runID: "unknown", since: Date(timeIntervalSince1970: 0))
    }

    private init(descriptor: Int32, tookOverFrom: Holder?) {
        self.descriptor = descriptor
        self.tookOverFrom = tookOverFrom
    }

    deinit {
        _ = ftruncate(descriptor, 0)
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    public struct HolderError: Error, Sendable {
        public var holder: Holder?
    }

    private static func readHolder(_ descriptor: Int32) -> Holder? {
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = pread(descriptor, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        let parts = String(decoding: buffer[0..<count], as: UTF8.self).split(separator: " ")
        guard parts.count >= 3, let pid = Int32(parts[0]), let since = Double(parts[2].trimmingCharacters(in: .whitespacesAndNewlines)) else {
            return nil
        }
        return Holder(pid: pid, runID: String(parts[1]), since: Date(timeIntervalSince1970: since))
    }
}

@available(*, unavailable)
extension CrawlLock: Sendable {}
