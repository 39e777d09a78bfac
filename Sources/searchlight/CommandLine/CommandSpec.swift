import Foundation

/// The description of one command: what it is called, what it takes, and its help.
/// Parsing and `--help` output are both generated from it, so they cannot disagree.
struct CommandSpec: Sendable {
    var name: String
    /// One imperative sentence.
    var abstract: String
    var discussion: String?
    var arguments: [ArgumentSpec] = []
    var options: [OptionSpec] = []
    var subcommands: [any Command.Type] = []
    /// Example invocations shown at the end of the help.
    var examples: [String] = []
}

/// A positional argument.
struct ArgumentSpec: Sendable {
    var name: String
    var help: String
    var isOptional = false
    var isRepeating = false

    var usage: String {
        let base = "<\(name)>" + (isRepeating ? " ..." : "")
        return isOptional ? "[\(base)]" : base
    }
}

/// A `--name` option: a flag when `valueName` is nil, else it takes a value.
struct OptionSpec: Sendable {
    var name: String
    var valueName: String?
    var help: String
    var isRepeatable = false
    /// Shown without brackets in the usage line; the command refuses to run without it.
    var isRequired = false

    static func flag(_ name: String, help: String) -> OptionSpec {
        OptionSpec(name: name, valueName: nil, help: help)
    }

    static func value(_ name: String, _ valueName: String, help: String, repeatable: Bool = false, required: Bool = false) -> OptionSpec {
        OptionSpec(name: name, valueName: valueName, help: help, isRepeatable: repeatable, isRequired: required)
    }

    var usage: String {
        let base = valueName.map { "\(name) <\($0)>" } ?? name
        return (isRequired ? base : "[\(base)]") + (isRepeatable ? " ..." : "")
    }
}

extension CommandSpec {
    /// `searchlight extract <file-or-url> [--base-url <url>] [--json]`
    func usageLine(path: [String]) -> String {
        var parts = path
        if !subcommands.isEmpty { parts.append("<subcommand>") }
        parts += arguments.map(\.usage)
        parts += options.map(\.usage)
        return parts.joined(separator: " ")
    }

    func helpText(path: [String]) -> String {
        var out = "OVERVIEW: \(abstract)\n"
        if let discussion { out += "\n\(discussion)\n" }
        out += "\nUSAGE: \(usageLine(path: path))\n"
        func rows(_ items: [(String, String)]) -> String {
            let width = min(max(items.map(\.0.count).max() ?? 0, 16) + 2, 34)
            return items.map { left, right in
                let pad = left.count < width ? String(repeating: " ", count: width - left.count) : "\n" + String(repeating: " ", count: width + 2)
                return "  \(left)\(pad)\(right.replacingOccurrences(of: "\n", with: "\n" + String(repeating: " ", count: width + 2)))"
            }.joined(separator: "\n") + "\n"
        }
        if !arguments.isEmpty {
            out += "\nARGUMENTS:\n" + rows(arguments.map { ("<\($0.name)>", $0.help) })
        }
        var optionRows = options.map { option in
            (option.valueName.map { "\(option.name) <\($0)>" } ?? option.name, option.help)
        }
        optionRows.append(("-h, --help", "Show help information."))
        if path.count == 1 { optionRows.append(("--version", "Show the version.")) }
        out += "\nOPTIONS:\n" + rows(optionRows)
        if !subcommands.isEmpty {
            out += "\nSUBCOMMANDS:\n" + rows(subcommands.map { ($0.spec.name, $0.spec.abstract) })
            out += "\n  See '\(path.joined(separator: " ")) help <subcommand>' for detailed help.\n"
        }
        if !examples.isEmpty {
            out += "\nEXAMPLES:\n" + examples.map { "  \($0)" }.joined(separator: "\n") + "\n"
        }
        return out
    }
}
