import Foundation
import Testing

/// The libraries' public API is semantically versioned: the test lists every public
/// declaration of the modules another package sees (the two products and the model modules
/// they re-export) against `PublicAPI.txt`, so that a change to them is deliberate — run
/// with `UPDATE_PUBLIC_API=1` to write the list again, and say in the change what it breaks.
/// Each public type and function has a doc comment (DocC reads them).
@Suite struct PublicAPITests {
    static let modules = ["SearchlightClient", "SearchlightMapping", "ItemModel", "SearchModel"]
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let digest = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("PublicAPI.txt")

    /// Each public declaration of `module`, whole (its parameters over several lines joined),
    /// without its body or default values' spacing; and those of types and functions that
    /// have no doc comment above them.
    static func declarations(of module: String) throws -> (all: [String], undocumented: [String]) {
        let folder = root.appendingPathComponent("Sources").appendingPathComponent(module)
        var all: [String] = [], undocumented: [String] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() where name.hasSuffix(".swift") {
            let lines = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8).components(separatedBy: "\n")
            var index = 0
            while index < lines.count {
                let line = lines[index].trimmingCharacters(in: .whitespaces)
                guard line.hasPrefix("public ") || line.hasPrefix("@discardableResult public") else {
                    index += 1
                    continue
                }
                var text = line
                var depth = line.filter { $0 == "(" }.count - line.filter { $0 == ")" }.count
                let start = index
                while depth > 0, index + 1 < lines.count {
                    index += 1
                    let next = lines[index].trimmingCharacters(in: .whitespaces)
                    text += " " + next
                    depth += next.filter { $0 == "(" }.count - next.filter { $0 == ")" }.count
                }
                if let body = text.range(of: " {") { text = String(text[..<body.lowerBound]) }
                text = text.split(separator: " ").joined(separator: " ")
                all.append("\(module): \(text)")
                let kinds = ["struct ", "enum ", "class ", "final class ", "protocol ", "func ", "static func ", "mutating func ", "init"]
                let declared = text.replacingOccurrences(of: "@discardableResult ", with: "").dropFirst("public ".count)
                var above = start - 1
                while above >= 0, lines[above].trimmingCharacters(in: .whitespaces).hasPrefix("@") { above -= 1 }
                let documented = above >= 0 && lines[above].trimmingCharacters(in: .whitespaces).hasPrefix("///")
                // An operator or a protocol's requirement is documented where the protocol is.
                let witness = ["static func <", "static func ==", "func hash(into", "func send("].contains { declared.hasPrefix($0) }
                if kinds.contains(where: { declared.hasPrefix($0) }), !declared.hasPrefix("init("), !witness, !documented {
                    undocumented.append("\(module)/\(name): \(text)")
                }
                index += 1
            }
        }
        return (all, undocumented)
    }

    @Test func thePublicAPIIsTheListedOne() throws {
        let current = try Self.modules.flatMap { try Self.declarations(of: $0).all }.sorted().joined(separator: "\n") + "\n"
        if ProcessInfo.processInfo.environment["UPDATE_PUBLIC_API"] != nil {
            try current.write(to: Self.digest, atomically: true, encoding: .utf8)
        }
        let listed = (try? String(contentsOf: Self.digest, encoding: .utf8)) ?? ""
        let (was, now) = (Set(listed.split(separator: "\n")), Set(current.split(separator: "\n")))
        #expect(was == now, "removed or changed: \(was.subtracting(now).sorted().prefix(20))\nadded: \(now.subtracting(was).sorted().prefix(20))")
    }

    @Test func everyPublicTypeAndFunctionIsDocumented() throws {
        let missing = try Self.modules.flatMap { try Self.declarations(of: $0).undocumented }
        #expect(missing.isEmpty, "\(missing.joined(separator: "\n"))")
    }
}
