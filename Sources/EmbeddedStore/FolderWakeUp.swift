import Foundation
import Glibc
import StoreSeams
import Synchronization

/// The data folder's wake-up: a named pipe (`crawl.wake`) the continuous crawl reads and
/// `serve` writes a byte to (``notify(dataDirectory:)``) when it made URLs due. A write
/// with no reader does nothing (the next run finds the work due anyway), and a burst of
/// writes is one wake-up. `@unchecked Sendable`: the descriptors and the thread are owned
/// here, behind the lock.
public final class FolderWakeUp: FrontierWakeUp, @unchecked Sendable {
    private let path: String
    private let state = Mutex<(fd: Int32, stop: Int32)>((-1, -1))

    public init(dataDirectory: String) {
        path = DataFolder(dataDirectory).wakePath
    }

    public func start(_ wake: @escaping @Sendable () -> Void) throws {
        if mkfifo(path, 0o600) != 0, errno != EEXIST {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        // Read and write, so that the pipe never reads end-of-file when a writer closes it.
        let fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw CocoaError(.fileReadUnknown, userInfo: [NSFilePathErrorKey: path]) }
        // Anything but a pipe there (a file left by hand) would always read as ready: refused.
        guard Self.isPipe(fd) else {
            close(fd)
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: path])
        }
        var stopPipe: [Int32] = [-1, -1]
        guard pipe(&stopPipe) == 0 else {
            close(fd)
            throw CocoaError(.fileReadUnknown)
        }
        state.withLock { $0 = (fd, stopPipe[1]) }
        let stopRead = stopPipe[0]
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 256)
            var watched = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: stopRead, events: Int16(POLLIN), revents: 0)]
            while true {
                let ready = poll(&watched, 2, -1)
                if ready < 0, errno == EINTR { continue }
                if ready < 0 || watched[1].revents != 0 { break }
                if watched[0].revents != 0 {
                    while read(fd, &buffer, buffer.count) > 0 {}
                    wake()
                }
            }
            close(stopRead)
            close(fd)
        }
        thread.name = "crawl wake-up"
        thread.start()
    }

    public func stop() {
        let stop = state.withLock { state -> Int32 in
            defer { state = (-1, -1) }
            return state.stop
        }
        guard stop >= 0 else { return }
        var byte: UInt8 = 1
        _ = write(stop, &byte, 1)
        close(stop)
    }

    deinit { stop() }

    /// Wakes the folder's continuous crawl, if one is listening: one byte, never blocking.
    public static func notify(dataDirectory: String) {
        let fd = open(DataFolder(dataDirectory).wakePath, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { close(fd) }
        // Never into a regular file, which would grow a byte a notice.
        guard isPipe(fd) else { return }
        var byte: UInt8 = 1
        _ = write(fd, &byte, 1)
    }

    private static func isPipe(_ fd: Int32) -> Bool {
        var status = stat()
        return fstat(fd, &status) == 0 && (status.st_mode & S_IFMT) == S_IFIFO
    }
}
