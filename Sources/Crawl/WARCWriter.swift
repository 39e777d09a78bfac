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

    public init(directory: String, software: String, maximumFileBytes: Int = 1 << 30) throws {
        self.directory = directory
        self.software = software
        self.maximumFileBytes = maximumFileBytes
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? handle?.close()
    }

    /// Appends records made by ``records(for:digest:duplicateOf:)``, opening or rotating
    /// files as needed.
    public func write(_ compressedRecords: [UInt8]) throws {
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
        try write(Gzip.compress(Self.record(type: "warcinfo", fields: [("WARC-Filename", (path as NSString).lastPathComponent)],
                                             contentType: "application/warc-fields", block: info), level: 1))
    }

    // MARK: records (pure, safe to build on any thread)

    /// The compressed request and response (or revisit) records for one fetch.
    public static func records(for response: FetchResponse, url: String, digest: ContentDigest, duplicateOf original: String?) -> [UInt8] {
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
        var output: [UInt8] = []
        if let original {
            let block = Array((headers + "\r\n").utf8)
            output += Gzip.compress(record(type: "revisit", id: responseID, fields: common + [
                ("WARC-Profile", "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"),
                ("WARC-Refers-To-Target-URI", original), ("WARC-Payload-Digest", digest.description),
            ], contentType: "application/http;msgtype=response", block: block), level: 1)
        } else {
            headers += "Content-Length: \(response.body.count)\r\n\r\n"
            let block = Array(headers.utf8) + response.body
            output += Gzip.compress(record(type: "response", id: responseID, fields: common + [("WARC-Payload-Digest", digest.description)],
                                           contentType: "application/http;msgtype=response", block: block), level: 1)
        }
        if !response.requestHeaderBlock.isEmpty {
            output += Gzip.compress(record(type: "request", fields: common + [("WARC-Concurrent-To", responseID)],
                                           contentType: "application/http;msgtype=request", block: Array(response.requestHeaderBlock.utf8)), level: 1)
        }
        return output
    }

    /// A status line warc readers accept: libcurl reports HTTP/2 as `HTTP/2 200`, with no
    /// reason phrase.
    static func statusLine(_ response: FetchResponse) -> String {
        let parts = response.statusLine.split(separator: " ", maxSplits: 2)
        if parts.count == 3 { return response.statusLine }
        let version = parts.first.map(String.init) ?? "HTTP/1.1"
        return "\(version) \(response.status) \(HTTPStatus.reason(response.status))"
    }

    static func record(type: String, id: String = "<urn:uuid:\(UUID().uuidString.lowercased())>", fields: [(String, String)],
                       contentType: String, block: [UInt8]) -> [UInt8]
    {
        var head = "WARC/1.1\r\nWARC-Type: \(type)\r\nWARC-Record-ID: \(id)\r\n"
        if !fields.contains(where: { $0.0 == "WARC-Date" }) {
            head += "WARC-Date: \(ISO8601.string(fromSeconds: Date().timeIntervalSince1970))\r\n"
        }
        for (name, value) in fields { head += "\(name): \(value)\r\n" }
        head += "Content-Type: \(contentType)\r\nContent-Length: \(block.count)\r\n\r\n"
        return Array(head.utf8) + block + [0x0D, 0x0A, 0x0D, 0x0A]
    }
}

@available(*, unavailable)
extension WARCWriter: Sendable {}
