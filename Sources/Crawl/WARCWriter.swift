import Fetch
import Foundation
import Gzip
import HTTPTypes
import StoreSeams
import TextUtilities

/// WARC/1.1 records of what a crawl fetched, one gzip member per record, in files under
/// `crawl-data/warc/` rotated by size, readable by standard web-archive tools (warcio,
/// pywb…). <https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/>
///
/// Each fetch becomes a `request` and a `response` record (linked by
/// `WARC-Concurrent-To`). libcurl hands the body over decoded, so the response keeps the
/// server's headers except that `Content-Encoding`, `Transfer-Encoding` and
/// `Content-Length` are renamed with an `X-Crawler-` prefix and a true `Content-Length`
/// is added, as Common Crawl does. A body already archived is written as a `revisit`
/// record (identical-payload-digest profile) instead of a second copy.
public final class WARCWriter {
    public let directory: String
    public let maximumFileBytes: Int
    /// `Searchlight/<version>`, for the warcinfo record.
    public let software: String
    private var handle: FileHandle?
    private var currentPath: String?
    private var currentBytes = 0
    private var serial = 0
    public private(set) var files: [String] = []
    /// Level 1: the archive is written for every page fetched, and level 1 compresses this
    /// text to within a few percent of level 6 at several times the speed.
    private let compressor = Gzip.Compressor(level: 1)
    /// The compressed records of one fetch, reused from fetch to fetch.
    private var output: [UInt8] = []

    public init(directory: String, software: String, maximumFileBytes: Int = 1 << 30) throws {
        self.directory = directory
        self.software = software
        self.maximumFileBytes = maximumFileBytes
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? handle?.close()
    }

    /// Appends the request and response (or revisit) records of one fetch, and the rendered
    /// document's conversion record when the page was rendered: each framed into one reused
    /// buffer — the body copied once, from the response into the record — and compressed as
    /// its own gzip member by the writer's compressor.
    public func write(_ response: FetchResponse, url: String, digest: ContentDigest, duplicateOf original: String?, rendered: [UInt8]? = nil) throws {
        output.removeAll(keepingCapacity: true)
        Self.frameRecords(for: response, url: url, digest: digest, duplicateOf: original, rendered: rendered) { record in
            compressor.append(compressing: record, to: &output)
        }
        try write(output)
    }

    private func write(_ compressedRecords: [UInt8]) throws {
        if handle == nil || currentBytes + compressedRecords.count > maximumFileBytes && currentBytes > 0 {
            try rotate()
        }
        try handle?.write(contentsOf: compressedRecords)
        currentBytes += compressedRecords.count
    }

    public func close() throws {
        try handle?.synchronize()
        try handle?.close()
        handle = nil
    }

    private func rotate() throws {
        try close()
        serial += 1
        let stamp = ISO8601.string(fromSeconds: Date().timeIntervalSince1970).filter { $0.isNumber }
        let path = (directory as NSString).appendingPathComponent("searchlight-\(stamp)-\(String(format: "%05d", serial))-\(getpid()).warc.gz")
        guard FileManager.default.createFile(atPath: path, contents: nil), let opened = FileHandle(forWritingAtPath: path) else {
            throw CrawlError("cannot create WARC file \(path)")
        }
        handle = opened
        currentPath = path
        currentBytes = 0
        files.append(path)
        let info = Array("software: \(software)\r\nformat: WARC File Format 1.1\r\nconformsTo: https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n".utf8)
        var compressed: [UInt8] = []
        var record: [UInt8] = []
        Self.frame(type: "warcinfo", fields: [("WARC-Filename", (path as NSString).lastPathComponent)], contentType: "application/warc-fields",
                   blockHead: [], body: info, into: &record)
        record.withUnsafeBytes { compressor.append(compressing: $0, to: &compressed) }
        try write(compressed)
    }

    // MARK: records (pure, safe to build on any thread)

    /// The uncompressed request and response (or revisit) records for one fetch, each passed
    /// to `each` in turn (valid during the call). A rendered document follows as a
    /// `conversion` record ("an alternative version of another record's content that was
    /// created as the result of an archival process", WARC 1.1 §6.8) that refers to the
    /// response.
    static func frameRecords(for response: FetchResponse, url: String, digest: ContentDigest, duplicateOf original: String?,
                             rendered: [UInt8]? = nil, _ each: (UnsafeRawBufferPointer) -> Void) {
        let date = ISO8601.string(fromSeconds: Date().timeIntervalSince1970)
        let responseID = "<urn:uuid:\(UUID().uuidString.lowercased())>"
        var common: [(String, String)] = [("WARC-Target-URI", url), ("WARC-Date", date)]
        if let address = response.remoteAddress { common.append(("WARC-IP-Address", address)) }

        var headers = "\(statusLine(response))\r\n"
        for header in response.headers {
            let lower = header.name.lowercased()
            let name = ["content-encoding", "transfer-encoding", "content-length"].contains(lower) ? "X-Crawler-\(header.name)" : header.name
            headers += "\(name): \(header.value)\r\n"
        }
        var record: [UInt8] = []
        if let original {
            frame(type: "revisit", id: responseID, fields: common + [
                ("WARC-Profile", "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"),
                ("WARC-Refers-To-Target-URI", original), ("WARC-Payload-Digest", digest.description),
            ], contentType: "application/http;msgtype=response", blockHead: Array((headers + "\r\n").utf8), body: [], into: &record)
        } else {
            headers += "Content-Length: \(response.body.count)\r\n\r\n"
            frame(type: "response", id: responseID, fields: common + [("WARC-Payload-Digest", digest.description)],
                  contentType: "application/http;msgtype=response", blockHead: Array(headers.utf8), body: response.body, into: &record)
        }
        record.withUnsafeBytes(each)
        if let rendered {
            frame(type: "conversion", fields: [("WARC-Target-URI", url), ("WARC-Date", date), ("WARC-Refers-To", responseID),
                                              ("WARC-Payload-Digest", ContentDigest(of: rendered).description)],
                  contentType: "text/html; charset=utf-8", blockHead: [], body: rendered, into: &record)
            record.withUnsafeBytes(each)
        }
        if !response.requestHeaderBlock.isEmpty {
            frame(type: "request", fields: common + [("WARC-Concurrent-To", responseID)], contentType: "application/http;msgtype=request",
                  blockHead: Array(response.requestHeaderBlock.utf8), body: [], into: &record)
            record.withUnsafeBytes(each)
        }
    }

    /// A status line warc readers accept: libcurl reports HTTP/2 as `HTTP/2 200`, with no
    /// reason phrase.
    static func statusLine(_ response: FetchResponse) -> String {
        let parts = response.statusLine.split(separator: " ", maxSplits: 2)
        if parts.count == 3 { return response.statusLine }
        let version = parts.first.map(String.init) ?? "HTTP/1.1"
        return "\(version) \(response.status) \(HTTPStatus.reason(response.status))"
    }

    /// One record: the WARC header, then the block (`blockHead` followed by `body`), then
    /// the two line breaks that end it; into `record`, replacing what it held.
    static func frame(type: String, id: String = "<urn:uuid:\(UUID().uuidString.lowercased())>", fields: [(String, String)],
                      contentType: String, blockHead: [UInt8], body: [UInt8], into record: inout [UInt8])
    {
        var head = "WARC/1.1\r\nWARC-Type: \(type)\r\nWARC-Record-ID: \(id)\r\n"
        if !fields.contains(where: { $0.0 == "WARC-Date" }) {
            head += "WARC-Date: \(ISO8601.string(fromSeconds: Date().timeIntervalSince1970))\r\n"
        }
        for (name, value) in fields { head += "\(name): \(value)\r\n" }
        head += "Content-Type: \(contentType)\r\nContent-Length: \(blockHead.count + body.count)\r\n\r\n"
        record.removeAll(keepingCapacity: true)
        record.reserveCapacity(head.utf8.count + blockHead.count + body.count + 4)
        record.append(contentsOf: head.utf8)
        record.append(contentsOf: blockHead)
        record.append(contentsOf: body)
        record.append(contentsOf: [0x0D, 0x0A, 0x0D, 0x0A])
    }
}

@available(*, unavailable)
extension WARCWriter: Sendable {}
