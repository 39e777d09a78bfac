import Glibc

/// Standard output and error for commands, written straight to the file descriptors.
enum Console {
    static func write(_ text: String) {
        writeAll(STDOUT_FILENO, text)
    }

    static func writeLine(_ text: String = "") {
        writeAll(STDOUT_FILENO, text + "\n")
    }

    /// Standard error without a newline (progress drawn in place).
    static func errorWrite(_ text: String) {
        writeAll(STDERR_FILENO, text)
    }

    static func error(_ text: String) {
        writeAll(STDERR_FILENO, text + "\n")
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
