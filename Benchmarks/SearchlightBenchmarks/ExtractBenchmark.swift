import CLibXML2
import Dispatch
import Foundation
import JSON
import Markup
import Synchronization
import WebURL

/// Extraction throughput next to libxml2's bare push parser (SAX, empty callbacks) over
/// the same in-memory pages, on one core and on every core.
enum ExtractBenchmark {
    struct Page: Sendable {
        var bytes: [UInt8]
        var url: WebURL
    }

    static func load(_ directory: String) -> [Page] {
        let root = URL(fileURLWithPath: directory)
        var pages: [Page] = []
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        while let file = enumerator?.nextObject() as? URL {
            guard file.pathExtension == "html", let data = try? Data(contentsOf: file) else { continue }
            let relative = file.path.dropFirst(root.path.count + 1)
            pages.append(Page(bytes: Array(data), url: WebURL("http://\(relative)")!))
        }
        return pages.sorted { $0.url < $1.url }
    }

    static func run(directory: String, rounds: Int) {
        let pages = load(directory)
        let bytes = pages.reduce(0) { $0 + $1.bytes.count }
        guard !pages.isEmpty else {
            print("no .html files under \(directory)")
            exit(1)
        }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        var best: [String: Double] = [:]
        if let only = ProcessInfo.processInfo.environment["ONLY"] {
            for _ in 0..<rounds { print(only, time { only == "sax" ? bareSAX(pages) : extract(pages) }) }
            return
        }
        for _ in 0..<rounds {
            // Interleave the runs so drift on a shared machine hits both alike.
            best["sax1", default: .infinity] = min(best["sax1", default: .infinity], time { bareSAX(pages) })
            best["extract1", default: .infinity] = min(best["extract1", default: .infinity], time { extract(pages) })
            best["saxN", default: .infinity] = min(best["saxN", default: .infinity], time { parallel(pages, cores) { bareSAX($0) } })
            best["extractN", default: .infinity] = min(best["extractN", default: .infinity], time { parallel(pages, cores) { extract($0) } })
        }
        let mb = Double(bytes) / 1_000_000
        func rate(_ key: String) -> Double { mb / best[key]! }
        let report: JSONValue = [
            "benchmark": "extract",
            "pages": .init(pages.count),
            "megabytes": .init(mb),
            "cores": .init(cores),
            "bare_sax_mb_per_s_1core": .init(rate("sax1")),
            "extract_mb_per_s_1core": .init(rate("extract1")),
            "ratio_1core": .init(rate("extract1") / rate("sax1")),
            "extract_pages_per_s_1core": .init(Double(pages.count) / best["extract1"]!),
            "bare_sax_mb_per_s_all_cores": .init(rate("saxN")),
            "extract_mb_per_s_all_cores": .init(rate("extractN")),
            "ratio_all_cores": .init(rate("extractN") / rate("saxN")),
            "extract_scaling": .init(rate("extractN") / rate("extract1")),
        ]
        print(JSONWriter.string(report))
    }

    static func time(_ body: () -> Void) -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    static func parallel(_ pages: [Page], _ workers: Int, _ body: @Sendable ([Page]) -> Void) {
        let slices = (0..<workers).map { w in Array(pages.enumerated().filter { $0.offset % workers == w }.map(\.element)) }
        DispatchQueue.concurrentPerform(iterations: workers) { body(slices[$0]) }
    }

    @inline(never)
    static func extract(_ pages: [Page]) {
        let extractor = MarkupExtractor()
        var links = 0
        for page in pages {
            links &+= extractor.extract(page.bytes, url: page.url).outlinks.count
        }
        blackHole(links)
    }

    /// libxml2's HTML push parser with empty start-element and character callbacks, as
    /// `../shared/bench/xmlsax_limit.c` runs it.
    @inline(never)
    static func bareSAX(_ pages: [Page]) {
        var sax = htmlSAXHandler()
        sax.startElement = { _, _, attributes in
            guard let attributes else { return }
            var i = 0
            while attributes[i] != nil { i += 2 }
        }
        sax.characters = { _, _, _ in }
        for page in pages {
            page.bytes.withUnsafeBufferPointer { buffer in
                let parser = htmlCreatePushParserCtxt(&sax, nil, nil, 0, "https://x/", XML_CHAR_ENCODING_NONE)
                htmlCtxtUseOptions(parser, Int32(HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue | HTML_PARSE_NONET.rawValue))
                _ = buffer.withMemoryRebound(to: CChar.self) { htmlParseChunk(parser, $0.baseAddress, Int32($0.count), 1) }
                htmlFreeParserCtxt(parser)
            }
        }
    }

    @inline(never)
    static func blackHole<T>(_ value: T) {
        withExtendedLifetime(value) {}
    }
}
