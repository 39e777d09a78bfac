import Glibc
import TextUtilities

/// Standard output and error for commands, written straight to the file descriptors.
///
/// What commands print holds what fetched sites wrote (titles, URLs, tag values, error
/// messages quoting them), so every control character but line feeds and tabs is written
/// as `\uXXXX` (``TerminalText``): a page cannot clear the screen, retitle the window or
/// reorder a line. Only ``writeStyled(_:)`` and ``errorWrite(_:)`` pass the program's own
/// escape sequences, around values their callers escaped.
enum Console {
    static func write(_ text: String) {
        writeAll(STDOUT_FILENO, TerminalText.escaped(text, keepingLines: true))
    }

    static func writeLine(_ text: String = "") {
        write(text + "\n")
    }

    /// Text whose values were escaped by the caller, with the caller's own styling (bold).
    static func writeStyled(_ text: String) {
        writeAll(STDOUT_FILENO, text)
    }

    /// Standard error without a newline, as given (progress drawn in place: its lines are
    /// escaped by ``ProgressDisplay``).
    static func errorWrite(_ text: String) {
        writeAll(STDERR_FILENO, text)
    }

    static func error(_ text: String) {
        writeAll(STDERR_FILENO, TerminalText.escaped(text, keepingLines: true) + "\n")
    }

    /// True when standard output is a terminal: progress and colour only then.
    static var isTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    private static func writeAll(_ descriptor: Int32, _ text: String) {
        var text = text
        text.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }
}
