import Foundation
import Synchronization

/// SIGINT and SIGTERM ask a long-running command (a crawl, `ingest --watch`) to finish
/// what is in flight and stop; a second signal ends the process at once.
enum StopSignal {
    private static let flag = Atomic<Bool>(false)
    /// The first stop signal received (0: none).
    private static let received = Atomic<Int32>(0)

    static var requested: Bool { flag.load(ordering: .relaxed) }

    /// The name of the signal that asked for the stop: `SIGINT` (Ctrl-C) or `SIGTERM`.
    static var name: String? {
        switch received.load(ordering: .relaxed) {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        default: nil
        }
    }

    /// What a shell expects of a command stopped by Ctrl-C: 130 (128 + SIGINT). SIGTERM, how
    /// a service manager ends a run on purpose (`systemctl stop`), exits 0.
    static var exitStatus: Int32 { received.load(ordering: .relaxed) == SIGINT ? 128 + SIGINT : 0 }

    /// Sleeps until `date` or until a stop is asked for, whichever comes first.
    static func wait(until date: Date) {
        while !requested, date.timeIntervalSinceNow > 0 { usleep(UInt32(min(date.timeIntervalSinceNow, 0.2) * 1_000_000)) }
    }

    static func install() {
        let handler: @convention(c) (Int32) -> Void = { signal in
            if StopSignal.flag.exchange(true, ordering: .relaxed) { _exit(128 + signal) }
            StopSignal.received.store(signal, ordering: .relaxed)
        }
        Glibc.signal(SIGINT, handler)
        Glibc.signal(SIGTERM, handler)
        // A parent may have started us with these blocked (a child inherits the signal mask,
        // and libdispatch blocks signals in its processes): without this, they would never come.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    }
}
