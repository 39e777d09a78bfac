import Glibc
import WebURL

/// `searchlight`: crawl app and deep-link markup into a shared index and search it.
@main
enum Searchlight {
    static let version = "0.1.0"

    static let spec = CommandSpec(
        name: "searchlight",
        abstract: "Crawl app and deep-link markup into a search index, and search it.",
        discussion: """
            Searchlight reads Smart App Banners, Universal Links, App Links, Twitter app cards,
            ios-app:// and android-app:// alternates, Open Graph and schema.org from web pages,
            and answers searches with what a tap on each result does: open the app at its
            deep link, open the web page, or offer the app in its store.
            """,
        subcommands: [
            CrawlCommand.self, SearchCommand.self, StatusCommand.self, ServeCommand.self, ShardsCommand.self, KeysCommand.self, IndexCommand.self, ExtractCommand.self,
            ValidateCommand.self, IngestCommand.self, ResolveCommand.self, DemoCommand.self,
        ],
        examples: ["searchlight extract page.html --base-url https://recipes.example/tart"])

    static func main() {
        CurlRuntime.prepare()
        exit(run(Array(CommandLine.arguments.dropFirst())))
    }

    /// Runs one invocation and returns the exit status: 0 success, 1 runtime failure,
    /// 64 usage error.
    static func run(_ arguments: [String]) -> Int32 {
        guard let first = arguments.first else {
            // Bare `searchlight`: what it can do, as `git` and `swift` answer.
            Console.write(spec.helpText(path: ["searchlight"]))
            return 0
        }
        switch first {
        case "-h", "--help":
            Console.write(spec.helpText(path: ["searchlight"]))
            return 0
        case "--version":
            Console.writeLine(version)
            return 0
        case "help":
            return help(for: Array(arguments.dropFirst()))
        default:
            return dispatch(arguments[...], commands: spec.subcommands, parent: spec, path: ["searchlight"])
        }
    }

    private static func help(for names: [String]) -> Int32 {
        var current = spec
        var path = ["searchlight"]
        for name in names {
            guard let command = current.subcommands.first(where: { $0.spec.name == name }) else {
                return usageFailure(UsageError("unknown subcommand '\(name)'"), spec: current, path: path)
            }
            current = command.spec
            path.append(name)
        }
        Console.write(current.helpText(path: path))
        return 0
    }

    private static func dispatch(_ arguments: ArraySlice<String>, commands: [any Command.Type], parent: CommandSpec, path: [String]) -> Int32 {
        guard let name = arguments.first else {
            return usageFailure(UsageError("missing subcommand"), spec: parent, path: path)
        }
        guard let command = commands.first(where: { $0.spec.name == name }) else {
            let message = name.hasPrefix("-") ? "unknown option '\(name)'" : "unknown subcommand '\(name)'"
            return usageFailure(UsageError(message), spec: parent, path: path)
        }
        let path = path + [name]
        let rest = arguments.dropFirst()
        // A group hands on to its subcommand first, so `keys create --help` is create's help.
        if !command.spec.subcommands.isEmpty, let next = rest.first, command.spec.subcommands.contains(where: { $0.spec.name == next }) {
            return dispatch(rest, commands: command.spec.subcommands, parent: command.spec, path: path)
        }
        let beforeTerminator = rest.prefix { $0 != "--" }
        if beforeTerminator.contains("-h") || beforeTerminator.contains("--help") {
            Console.write(command.spec.helpText(path: path))
            return 0
        }
        if !command.spec.subcommands.isEmpty {
            if rest.first == "help" { return help(for: Array(path.dropFirst()) + Array(rest.dropFirst())) }
            return dispatch(rest, commands: command.spec.subcommands, parent: command.spec, path: path)
        }
        do {
            let parsed = try ParsedArguments(rest, spec: command.spec)
            let instance = try command.init(arguments: parsed)
            try instance.run()
            return 0
        } catch let error as UsageError {
            return usageFailure(error, spec: command.spec, path: path)
        } catch let exit as ExitCode {
            return exit.status
        } catch {
            Console.error("error: \(error)")
            return 1
        }
    }

    private static func usageFailure(_ error: UsageError, spec: CommandSpec, path: [String]) -> Int32 {
        Console.error("error: \(error.message)")
        if error.showsUsage {
            Console.error("usage: \(spec.usageLine(path: path))")
            Console.error("See '\(path.joined(separator: " ")) --help' for more information.")
        }
        return 64
    }
}
