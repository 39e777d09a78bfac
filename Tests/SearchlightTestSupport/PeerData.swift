import Foundation

/// Other projects' own test data (the Standards' test files, peer parsers' cases), read
/// where it is — `../shared/peer-data/` next to the repository, as on CI — and never
/// copied in. A suite that needs it is skipped, and says so, when it is absent.
public enum PeerData {
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/peer-data")

    /// The folder `name` of the peer data, when it is there.
    public static func folder(_ name: String) -> URL? {
        let url = root.appendingPathComponent(name)
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }
}
