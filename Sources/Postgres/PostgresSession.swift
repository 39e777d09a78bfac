import Foundation
import Synchronization

/// A connection shared by several threads, used by one at a time, that outlives the
/// server going away: a unit of work that fails because the connection was lost (the
/// server restarted, a network blip) is run again on a new connection, for up to
/// `retryWindow` seconds; one that lost a race (serialization failure, deadlock) is run
/// again at once, up to five times. Units of work must therefore be whole transactions
/// that can run twice: a commit whose answer was lost may have happened.
public final class PostgresSession: @unchecked Sendable {
    // @unchecked: `connection` is only touched inside `run`, while `lock` is held.
    private let lock = Mutex(())
    private var connection: PostgresConnection?
    public let url: String
    public let retryWindow: Double
    /// Reconnections so far (a metric and a test hook).
    public private(set) var reconnections = 0

    /// Connects at once, so that a wrong URL or a server that is down is reported now.
    public init(url: String, retryWindow: Double = 60) throws(PostgresError) {
        self.url = url
        self.retryWindow = retryWindow
        connection = try PostgresConnection(url: url)
    }

    @discardableResult
    public func run<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try lock.withLock { _ in
            let deadline = Date().addingTimeInterval(retryWindow)
            var pause = 0.1
            var races = 0
            while true {
                do {
                    if connection?.isOpen != true {
                        connection = nil
                        connection = try PostgresConnection(url: url)
                        reconnections += 1
                    }
                    return try body(connection!)
                } catch let error as PostgresError where error.isConnectionLoss && Date() < deadline {
                    connection = nil
                    Thread.sleep(forTimeInterval: pause)
                    pause = min(pause * 2, 2)
                } catch let error as PostgresError where error.isRetryable && races < 5 {
                    races += 1
                }
            }
        }
    }

    /// Runs `body` as one transaction, retried as a whole.
    @discardableResult
    public func transaction<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try run { connection in try connection.transaction { try body(connection) } }
    }
}
