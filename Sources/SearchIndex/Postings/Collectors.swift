/// What a scored search offers its documents to (Lucene's `Collector` with scores): the
/// top-k heap (``TopK``). Its threshold is fed back to the scorer, which skips what cannot
/// reach it (MaxScore), so a collector that wants every document keeps it at −∞.
protocol ScoredCollector {
    /// The lowest score that may still get in; −∞ while anything may.
    var threshold: Double { get }
    /// Offers the document at `ordinal` of `documents` with `score`.
    mutating func collect(_ score: Double, ordinal: Int32, in documents: SegmentDocuments)
}

extension ScoredCollector {
    /// Whether a document scoring `score` might get in: cheap, before its key is read.
    @inline(__always) func admits(_ score: Double) -> Bool { score >= threshold }
}

/// What a search over every match offers each segment's matches to, as a bit per ordinal
/// of the segment, after deleted, expired and filtered-out documents are masked
/// (``SegmentSearcher/collectMatches(_:live:expired:allowed:into:)``): facet counts
/// (``FacetTally``). Reading postings without scores, it never prunes.
protocol MatchCollector {
    mutating func collect(_ segment: SegmentReader, matches: UnsafeBufferPointer<UInt64>)
}
