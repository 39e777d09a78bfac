import CLibXML2
import Dispatch
import Foundation
import Markup
import SearchIndex
import WebURL

// Searchlight's benchmarks. Each prints one JSON object per line with its figures and the
// baseline measured in the same run, so ratios stay meaningful on a shared machine.
//
//   searchlight-bench extract DIR [--rounds N]
//   searchlight-bench index [--sizes 100000,1000000] [--dir /tmp] [--export DIR] [--body-words 300] [--no-peer-queries]
//   searchlight-bench serve-index DIR [--items 100000] [--body-words 300] [--export DIR [--export-only]] [--shards K] [--attributes]
//   searchlight-bench filter-profile DIR [--set standard] [--rounds 3] [--queries FILE] [--only LABEL-PART]   (DIR made by serve-index --attributes)
//   searchlight-bench search-in-process DIR [--threads 4] [--seconds 30] [--queries FILE]
//   searchlight-bench fleet-claims postgres://… [--urls 200000] [--hosts 200] [--workers 2] [--block 64]
//   searchlight-bench fleet-follow postgres://… [--items 50000] [--dir /tmp]
//   searchlight-bench ingest [--rows 1000000] [--companies 1000] [--dir /tmp]
//   searchlight-bench spelling [--words 1000000] [--dir /tmp]
//   searchlight-bench sharded [--items 1000000] [--shards 4] [--dir /tmp]
//   searchlight-bench sharded --whole DIR --split DIR --queries FILE [--shards 4]   (indexes made by serve-index [--shards])

let arguments = Array(CommandLine.arguments.dropFirst())
guard let mode = arguments.first else {
    FileHandle.standardError.write(Data(("usage: searchlight-bench extract DIR [--rounds N] | index [--sizes N,...] [--dir DIR]"
        + " | serve-index DIR [--items N] | search-in-process DIR [--threads N] [--seconds S]\n").utf8))
    exit(64)
}
/// The index of a benchmark's folder, made before by `serve-index` or `index`; exit 64 with
/// the reason when there is none to open.
func existingIndex(_ directory: String) -> SearchIndex {
    do {
        return try SearchIndex(path: directory + "/index.sqlite", mode: .existing)
    } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        exit(64)
    }
}

func option(_ name: String) -> String? {
    arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
}

switch mode {
case "extract":
    ExtractBenchmark.run(directory: arguments.count > 1 ? arguments[1] : ".", rounds: Int(option("--rounds") ?? "3") ?? 3)
case "index":
    let sizes = (option("--sizes") ?? "100000,1000000").split(separator: ",").compactMap { Int($0) }
    // --export-only writes the corpus and the query sets for a peer engine, and measures nothing.
    IndexBenchmark.run(sizes: sizes, directory: option("--dir") ?? NSTemporaryDirectory(), export: option("--export"),
                       exportOnly: arguments.contains("--export-only"), bodyWords: Int(option("--body-words") ?? "300") ?? 300,
                       peerQueries: !arguments.contains("--no-peer-queries"))
case "insert-profile":
    // Only our indexing of N items, for a profiler.
    IndexBenchmark.insertOnly(size: Int(option("--items") ?? "20000") ?? 20_000, directory: option("--dir") ?? NSTemporaryDirectory())
case "query-profile":
    // Searches a query set over an index made by `serve-index`, for a profiler.
    IndexBenchmark.queryOnly(directory: arguments.count > 1 ? arguments[1] : ".", set: option("--set") ?? "frequent",
                             rounds: Int(option("--rounds") ?? "3") ?? 3, exhaustive: arguments.contains("--exhaustive"),
                             queryFile: option("--queries"))
case "filter-profile":
    // Filtered searches next to unfiltered ones over a (copy of a) `serve-index` index.
    FilterBenchmark.run(directory: arguments.count > 1 ? arguments[1] : ".", set: option("--set") ?? "standard",
                        rounds: Int(option("--rounds") ?? "3") ?? 3, queryFile: option("--queries"), only: option("--only"))
case "serve-index":
    ServeBenchmark.makeIndex(size: Int(option("--items") ?? "100000") ?? 100_000, directory: arguments.count > 1 ? arguments[1] : ".",
                             bodyWords: Int(option("--body-words") ?? "300") ?? 300, export: option("--export"),
                             exportOnly: arguments.contains("--export-only"), shards: Int(option("--shards") ?? "1") ?? 1,
                             attributes: arguments.contains("--attributes"))
case "search-in-process":
    ServeBenchmark.searchInProcess(directory: arguments.count > 1 ? arguments[1] : ".", threads: Int(option("--threads") ?? "4") ?? 4,
                                   seconds: Double(option("--seconds") ?? "30") ?? 30, file: option("--queries") ?? "queries.txt")
case "fleet-claims":
    FleetBenchmark.claims(store: arguments.count > 1 ? arguments[1] : "", urls: Int(option("--urls") ?? "200000") ?? 200_000,
                          hosts: Int(option("--hosts") ?? "200") ?? 200, workers: Int(option("--workers") ?? "2") ?? 2,
                          block: Int(option("--block") ?? "64") ?? 64)
case "fleet-follow":
    FleetBenchmark.follow(store: arguments.count > 1 ? arguments[1] : "", items: Int(option("--items") ?? "50000") ?? 50_000,
                          directory: option("--dir") ?? NSTemporaryDirectory())
case "ingest":
    IngestBenchmark.run(rows: Int(option("--rows") ?? "1000000") ?? 1_000_000, companies: Int(option("--companies") ?? "1000") ?? 1000,
                        directory: option("--dir") ?? NSTemporaryDirectory())
case "sharded":
    if let whole = option("--whole"), let split = option("--split"), let queries = option("--queries") {
        ShardedBenchmark.run(whole: whole, split: split, shards: Int(option("--shards") ?? "4") ?? 4, queries: queries)
    } else {
        ShardedBenchmark.run(items: Int(option("--items") ?? "1000000") ?? 1_000_000, shards: Int(option("--shards") ?? "4") ?? 4,
                             directory: option("--dir") ?? NSTemporaryDirectory())
    }
case "findability":
    // validate --query's engine side over a `serve-index` index.
    FindabilityBenchmark.run(directory: arguments.count > 1 ? arguments[1] : ".", count: Int(option("--queries") ?? "100") ?? 100)
case "spelling":
    SpellingBenchmark.run(words: Int(option("--words") ?? "1000000") ?? 1_000_000, directory: option("--dir") ?? NSTemporaryDirectory())
default:
    FileHandle.standardError.write(Data("unknown benchmark \(mode)\n".utf8))
    exit(64)
}
