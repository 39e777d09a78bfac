import EmbeddedStore
import Foundation
import SearchlightTestSupport
import StoreSeams
import Testing

/// The data folder's wake-up pipe: a byte written wakes the listener, and anything but a
/// pipe at its place is neither listened to (it would always read as ready) nor written to
/// (it would grow a byte a notice).
@Suite struct FolderWakeUpTests {
    @Test func aNotifyWakesTheListener() throws {
        let folder = try TemporaryDirectory("wake")
        defer { folder.remove() }
        let woken = DispatchSemaphore(value: 0)
        let wakeUp = FolderWakeUp(dataDirectory: folder.path)
        try wakeUp.start { woken.signal() }
        defer { wakeUp.stop() }
        FolderWakeUp.notify(dataDirectory: folder.path)
        #expect(woken.wait(timeout: .now() + 30) == .success)
    }

    @Test func aRegularFileInItsPlaceIsRefused() throws {
        let folder = try TemporaryDirectory("wake")
        defer { folder.remove() }
        let path = DataFolder(folder.path).wakePath
        try Data().write(to: URL(fileURLWithPath: path))
        FolderWakeUp.notify(dataDirectory: folder.path)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int == 0, "nothing written into a file")
        #expect(throws: (any Error).self) { try FolderWakeUp(dataDirectory: folder.path).start {} }
    }
}
