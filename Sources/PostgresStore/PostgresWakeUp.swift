import Foundation
import Glibc
import Postgres
import StoreSeams
import Synchronization

/// The shared store's wake-up: a connection of its own that `LISTEN`s on ``channel``, which
/// ``PostgresCrawlStore/makeDue(_:now:)`` notifies when a notice made URLs due (in the
/// notifying transaction, so the worker woken sees the URLs). Every listening worker is
/// woken; the one whose claim gets a URL fetches it. A lost connection is made again every
/// second, and its return wakes the crawl once (a notification sent meanwhile was missed).
/// `@unchecked Sendable`: the connection lives on the listening thread alone; the stop flag
/// is atomic.
public final class PostgresWakeUp: FrontierWakeUp, @unchecked Sendable {
    /// The notification channel: due work was added.
    public static let channel = "searchlight_crawl_due"
    private let url: String
    private let stopped = Atomic<Bool>(false)
    /// How long the thread waits on the socket before it looks at the stop flag.
    private static let step: Int32 = 250

    public init(url: String) {
        self.url = url
    }

    public func start(_ wake: @escaping @Sendable () -> Void) throws {
        let url = self.url
        let thread = Thread { [self] in
            var connection: PostgresConnection?
            var lostBefore = false
            while !stopped.load(ordering: .relaxed) {
                guard let listening = connection else {
                    do {
                        let fresh = try PostgresConnection(url: url)
                        try fresh.execute("LISTEN \(Self.channel)")
                        connection = fresh
                        if lostBefore { wake() }
                    } catch {
                        lostBefore = true
                        Thread.sleep(forTimeInterval: 1)
                    }
                    continue
                }
                guard listening.isOpen else {
                    (connection, lostBefore) = (nil, true)
                    continue
                }
                var watched = pollfd(fd: listening.socket, events: Int16(POLLIN), revents: 0)
                let ready = poll(&watched, 1, Self.step)
                guard ready > 0 else { continue }
                do {
                    if try !listening.takeNotifications().isEmpty { wake() }
                } catch {
                    connection = nil
                    lostBefore = true
                }
            }
        }
        thread.name = "crawl wake-up (PostgreSQL)"
        thread.start()
    }

    public func stop() {
        stopped.store(true, ordering: .relaxed)
    }
}
