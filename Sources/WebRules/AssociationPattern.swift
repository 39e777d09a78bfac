/// One pattern of an `apple-app-site-association` component (`/`, `?`, `#` or a query
/// item's value): `*` is any run of characters, `?` exactly one, `$(name)` one of a
/// variable's values or a character class, everything else itself; the pattern must
/// match the whole text.
///
/// The pattern is compiled to a Thompson automaton and run over the text once, keeping
/// the set of live states, so matching costs at most (text length × pattern size) steps
/// whatever the pattern: a backtracking matcher is exponential on `*a*a*a*…b`, and the
/// files come from the sites we crawl.
struct AssociationPattern: Sendable {
    /// A state of the automaton. `split` and `jump` move without reading a character;
    /// `any` reads one character and stays, or moves on without reading.
    private enum Node: Sendable {
        case literal(Character)
        case one
        case oneOf(CharacterClass)
        case any
        case split([Int])
        case jump(Int)
    }

    /// The predefined `$(alpha)` … `$(xdigit)`: ASCII only.
    private enum CharacterClass: Sendable {
        case alpha, upper, lower, alnum, digit, xdigit

        func contains(_ c: Character, caseSensitive: Bool) -> Bool {
            guard c.isASCII else { return false }
            switch self {
            case .alpha: return c.isLetter
            case .upper: return c.isUppercase || (!caseSensitive && c.isLetter)
            case .lower: return c.isLowercase || (!caseSensitive && c.isLetter)
            case .alnum: return c.isLetter || c.isNumber
            case .digit: return c.isNumber
            case .xdigit: return c.isHexDigit
            }
        }
    }

    private var nodes: [Node] = []
    private let caseSensitive: Bool

    /// The automaton's size, which bounds the work of one match per character of text.
    var size: Int { nodes.count }

    private let maximumSize: Int

    /// Compiles `pattern`; with `caseSensitive` false the pattern (and the variables'
    /// values) are lowercased, and the caller lowercases the text. Nil when the automaton
    /// would have more than `maximumSize` states.
    init?(_ pattern: String, caseSensitive: Bool, variables: [String: [String]], maximumSize: Int) {
        self.caseSensitive = caseSensitive
        self.maximumSize = maximumSize
        guard compile(caseSensitive ? pattern : pattern.lowercased(), variables: variables, nested: false) else { return nil }
    }

    func matches(_ text: String) -> Bool {
        var current = [Int]()
        var marks = [Int](repeating: -1, count: nodes.count + 1)
        var generation = 0
        addClosure(0, to: &current, marks: &marks, generation: generation)
        for c in text {
            if current.isEmpty { return false }
            generation += 1
            var next = [Int]()
            for state in current where state < nodes.count {
                switch nodes[state] {
                case .literal(let expected): if c == expected { addClosure(state + 1, to: &next, marks: &marks, generation: generation) }
                case .one: addClosure(state + 1, to: &next, marks: &marks, generation: generation)
                case .oneOf(let set): if set.contains(c, caseSensitive: caseSensitive) { addClosure(state + 1, to: &next, marks: &marks, generation: generation) }
                case .any: addClosure(state, to: &next, marks: &marks, generation: generation)
                case .split, .jump: break
                }
            }
            current = next
        }
        return current.contains(nodes.count)
    }

    /// Adds `state` and every state reachable from it without reading a character.
    private func addClosure(_ state: Int, to set: inout [Int], marks: inout [Int], generation: Int) {
        var stack = [state]
        while let s = stack.popLast() {
            guard marks[s] != generation else { continue }
            marks[s] = generation
            set.append(s)
            guard s < nodes.count else { continue }
            switch nodes[s] {
            case .split(let targets): stack.append(contentsOf: targets)
            case .jump(let target): stack.append(target)
            case .any: stack.append(s + 1)
            case .literal, .one, .oneOf: break
            }
        }
    }

    /// False when the automaton outgrew `maximumSize`.
    private mutating func compile(_ pattern: String, variables: [String: [String]], nested: Bool) -> Bool {
        var rest = Substring(pattern)
        while let c = rest.first {
            guard nodes.count < maximumSize else { return false }
            // Variables are not expanded inside a variable's values.
            if c == "$", !nested, rest.dropFirst().first == "(", let close = rest.firstIndex(of: ")") {
                let name = String(rest[rest.index(rest.startIndex, offsetBy: 2)..<close])
                rest = rest[rest.index(after: close)...]
                guard appendVariable(name, variables: variables) else { return false }
                continue
            }
            rest = rest.dropFirst()
            switch c {
            case "*": nodes.append(.any)
            case "?": nodes.append(.one)
            default: nodes.append(.literal(c))
            }
        }
        return true
    }

    private mutating func appendVariable(_ name: String, variables: [String: [String]]) -> Bool {
        switch name {
        case "alpha": nodes.append(.oneOf(.alpha))
        case "upper": nodes.append(.oneOf(.upper))
        case "lower": nodes.append(.oneOf(.lower))
        case "alnum": nodes.append(.oneOf(.alnum))
        case "digit": nodes.append(.oneOf(.digit))
        case "xdigit": nodes.append(.oneOf(.xdigit))
        case "region": return appendAlternatives(ISOCodes.regions, variables: variables)
        case "lang": return appendAlternatives(ISOCodes.languages, variables: variables)
        default: return appendAlternatives(variables[name] ?? [], variables: variables)
        }
        return true
    }

    /// `split` to the start of each value; each value ends with a `jump` past the last.
    /// No values match nothing: a split with no targets is a dead end.
    private mutating func appendAlternatives(_ values: [String], variables: [String: [String]]) -> Bool {
        let splitIndex = nodes.count
        nodes.append(.split([]))
        var starts: [Int] = []
        var jumps: [Int] = []
        for value in values {
            starts.append(nodes.count)
            guard compile(caseSensitive ? value : value.lowercased(), variables: variables, nested: true) else { return false }
            jumps.append(nodes.count)
            nodes.append(.jump(-1))
        }
        nodes[splitIndex] = .split(starts)
        for jump in jumps { nodes[jump] = .jump(nodes.count) }
        return true
    }
}
