import Foundation

/// libFuzzer's entry point. Built with `scripts/fuzz.sh` (`--sanitize fuzzer --sanitize
/// address -Xswiftc -DFUZZING`), libFuzzer supplies `main` and calls this for every input;
/// `SEARCHLIGHT_FUZZ_TARGET` names the parser.
@_cdecl("LLVMFuzzerTestOneInput")
public func searchlightFuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    FuzzEntry.target.run(bytes)
    return 0
}

enum FuzzEntry {
    static let target: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["SEARCHLIGHT_FUZZ_TARGET"] ?? ""
        guard let target = FuzzTarget(rawValue: name) else {
            FileHandle.standardError.write(Data("set SEARCHLIGHT_FUZZ_TARGET to one of: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))\n".utf8))
            exit(64)
        }
        return target
    }()
}

#if !FUZZING
/// Without libFuzzer (a plain `swift build`): replays files through a target, so a corpus
/// or a crashing input found elsewhere can be run under a debugger.
/// `searchlight-fuzz TARGET FILE_OR_DIRECTORY...`
@main enum ReplayMain {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard let name = arguments.first, let target = FuzzTarget(rawValue: name), arguments.count > 1 else {
            print("usage: searchlight-fuzz TARGET FILE_OR_DIRECTORY...\ntargets: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: " "))")
            exit(64)
        }
        var count = 0
        for path in arguments.dropFirst() {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            let files = isDirectory.boolValue
                ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted().map { path + "/" + $0 } : [path]
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else { continue }
                target.run(Array(data))
                count += 1
            }
        }
        print("\(name): \(count) inputs, no crash")
    }
}
#endif
