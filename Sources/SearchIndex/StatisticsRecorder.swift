import SearchModel

/// What a query's plan looked up in one index (``SearchIndex/statistics(for:)``).
final class StatisticsRecorder {
    /// Spelling candidates a word keeps, the most frequent first (the plan uses 5).
    static let candidates = 20
    var frequencies: [[UInt8]: Int] = [:]
    var completions: [[UInt8]: [[UInt8]: Int]] = [:]
    var spellings: [[UInt8]: [[UInt8]: Int]] = [:]
}
