import CLibXML2
import Dispatch
import Foundation
import Markup
import WebURL

// Searchlight's benchmarks. Each prints one JSON object per line with its figures and the
// baseline measured in the same run, so ratios stay meaningful on a shared machine.
//
//   searchlight-bench extract DIR [--rounds N]
//   searchlight-bench index [--sizes 100000,1000000] [--dir /tmp]

let arguments = Array(CommandLine.arguments.dropFirst())
guard let mode = arguments.first else {
    FileHandle.standardError.write(Data("usage: searchlight-bench extract DIR [--rounds N] | index [--sizes N,...] [--dir DIR]\n".utf8))
    exit(64)
}
func option(_ name: String) -> String? {
    arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
}

switch mode {
case "extract":
    ExtractBenchmark.run(directory: arguments.count > 1 ? arguments[1] : ".", rounds: Int(option("--rounds") ?? "3") ?? 3)
case "index":
    let sizes = (option("--sizes") ?? "100000,1000000").split(separator: ",").compactMap { Int($0) }
    IndexBenchmark.run(sizes: sizes, directory: option("--dir") ?? NSTemporaryDirectory())
default:
    FileHandle.standardError.write(Data("unknown benchmark \(mode)\n".utf8))
    exit(64)
}
