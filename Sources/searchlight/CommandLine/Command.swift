/// A subcommand of `searchlight`, in the shape of swift-argument-parser's
/// `ParsableCommand`: a spec, an initialiser that validates arguments (throwing
/// ``UsageError``), and `run`, whose errors are runtime failures.
protocol Command: Sendable {
    static var spec: CommandSpec { get }
    init(arguments: ParsedArguments) throws(UsageError)
    func run() throws
}

/// A command that only groups subcommands (`searchlight index …`).
protocol CommandGroup: Command {}

extension CommandGroup {
    init(arguments: ParsedArguments) throws(UsageError) {
        throw UsageError("missing subcommand")
    }

    func run() throws {}
}
