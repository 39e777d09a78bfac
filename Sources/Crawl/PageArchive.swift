import Dispatch
import Fetch
import Synchronization

/// Archives fetches as WARC records on a queue of its own, so that compressing bodies is
/// off the coordinator's path and each record is built once — as a response, or as a
/// revisit when the coordinator found the body was archived before. At most
/// ``backlog`` fetches wait (their bodies in memory); past that `archive` waits.
final class PageArchive: Sendable {
    static let backlog = 64

    private let writer: Writer
    private let queue = DispatchQueue(label: "searchlight.warc")
    private let slots = DispatchSemaphore(value: PageArchive.backlog)
    private let failures = Failures()

    private final class Failures: Sendable {
        let count = Atomic<Int>(0)
    }

    /// The WARC writer, touched only on `queue`.
    private final class Writer: @unchecked Sendable {
        // @unchecked: used only from the archive's serial queue, and after `close()` has
        // drained it, from the caller.
        let warc: WARCWriter
        init(_ warc: WARCWriter) { self.warc = warc }
    }

    init(_ warc: WARCWriter) {
        writer = Writer(warc)
    }

    /// Queues a fetch: `duplicateOf` is the URL an identical body was archived under, for a
    /// revisit record; `rendered`, the document the browser made of it.
    func archive(_ response: FetchResponse, url: String, digest: ContentDigest?, duplicateOf: String?, rendered: [UInt8]? = nil) {
        guard response.error == nil else { return }
        slots.wait()
        let writer = self.writer
        queue.async { [slots, failures] in
            defer { slots.signal() }
            do {
                try writer.warc.write(response, url: url, digest: digest ?? ContentDigest(of: response.body), duplicateOf: duplicateOf,
                                      rendered: rendered)
            } catch {
                failures.count.add(1, ordering: .relaxed)
            }
        }
    }

    /// Writes what is queued and closes the file; returns the files written and how many
    /// records could not be.
    func close() throws -> (files: [String], failures: Int) {
        queue.sync {}
        try writer.warc.close()
        return (writer.warc.files, failures.count.load(ordering: .relaxed))
    }
}
