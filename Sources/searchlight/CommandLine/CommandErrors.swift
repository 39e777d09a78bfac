/// Bad invocation: printed with the usage line; exit status 64 (`EX_USAGE`).
struct UsageError: Error, CustomStringConvertible {
    var message: String
    /// False for bad input files (a mapping, a data model): the arguments were right, so the
    /// usage line would only bury the error.
    var showsUsage = true
    init(_ message: String) { self.message = message }
    var description: String { message }

    /// A file the command was given is not what it must be: exit 64, without the usage line.
    static func input(_ message: String) -> UsageError {
        var error = UsageError(message)
        error.showsUsage = false
        return error
    }
}

/// A failure the command has already reported, or one that needs a specific status.
struct ExitCode: Error {
    var status: Int32
    static let success = ExitCode(status: 0)
    static let failure = ExitCode(status: 1)
    static let usage = ExitCode(status: 64)
}

/// A runtime failure with a message for the user; exit status 1.
struct CommandFailure: Error, CustomStringConvertible {
    var message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}
