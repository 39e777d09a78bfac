/// The identity Searchlight fetches with.
enum UserAgent {
    /// `Searchlightbot/<version> (+<project URL>)`; robots.txt rules for `searchlightbot` apply.
    static let string = "Searchlightbot/\(Searchlight.version) (+https://github.com/searchlight-crawler/searchlight)"
}
