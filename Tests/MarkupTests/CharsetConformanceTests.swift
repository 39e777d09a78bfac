import Foundation
import JSON
import Markup
import SearchlightTestSupport
import Testing

/// The Encoding Standard's own label table (`encodings.json`) and html5lib's
/// encoding-sniffing tests (`encoding/*.dat`: bytes in, the encoding a browser picks out).
@Suite(.enabled(if: PeerData.folder("charset") != nil, "../shared/peer-data/charset is not there"))
struct CharsetConformanceTests {
    @Test func everyLabelOfTheStandardNamesItsEncoding() throws {
        let folder = try #require(PeerData.folder("charset"))
        let groups = try JSONParser.parse(String(decoding: Data(contentsOf: folder.appendingPathComponent("encodings.json")), as: UTF8.self))
        var labels = 0
        for group in groups.arrayValue ?? [] {
            for encoding in group["encodings"]?.arrayValue ?? [] {
                let name = try #require(encoding["name"]?.stringValue)
                for label in encoding["labels"]?.arrayValue ?? [] {
                    let text = try #require(label.stringValue)
                    labels += 1
                    #expect(WebEncoding(label: text)?.name == name, "\(text)")
                    #expect(WebEncoding(label: " \t" + text.uppercased() + "\n")?.name == name, "ASCII whitespace and case: \(text)")
                }
            }
        }
        #expect(labels >= 200)
        #expect(WebEncoding(label: "\u{212A}oi8-r") == nil, "a Kelvin sign is not an ASCII k")
        #expect(WebEncoding(label: "iso-8859-99") == nil, "unknown labels are failures")
    }

    @Test func html5libSniffingCases() throws {
        let folder = try #require(PeerData.folder("charset"))
        var count = 0
        for file in ["tests1.dat", "tests2.dat", "test-yahoo-jp.dat"] {
            let text = try Data(contentsOf: folder.appendingPathComponent(file))
            for (data, expected) in Self.cases(Array(text)) {
                count += 1
                let (decision, _, _) = data.withUnsafeBufferPointer { CharsetDetection.decide(bytes: $0, contentType: nil) }
                // Nothing declared: html5lib's default is windows-1252 (ours reads valid UTF-8 first).
                let name = decision.source == .sniffed ? "windows-1252" : decision.standardName
                #expect(name == expected.lowercased(), "\(file): \(String(decoding: data.prefix(160), as: UTF8.self))")
            }
        }
        #expect(count >= 80)
    }

    /// `#data` … `#encoding` … blocks, the data's bytes as they are.
    static func cases(_ bytes: [UInt8]) -> [([UInt8], String)] {
        let marker = Array("#data\n".utf8), encodingMarker = Array("\n#encoding\n".utf8)
        var result: [([UInt8], String)] = []
        var index = 0
        func find(_ needle: [UInt8], from start: Int) -> Int? {
            guard start + needle.count <= bytes.count else { return nil }
            return (start...(bytes.count - needle.count)).first { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
        }
        while let start = find(marker, from: index) {
            let dataStart = start + marker.count
            guard let encodingAt = find(encodingMarker, from: dataStart) else { break }
            let nameStart = encodingAt + encodingMarker.count
            let nameEnd = bytes[nameStart...].firstIndex(of: 0x0A) ?? bytes.count
            result.append((Array(bytes[dataStart..<encodingAt]), String(decoding: bytes[nameStart..<nameEnd], as: UTF8.self)))
            index = nameEnd
        }
        return result
    }
}
