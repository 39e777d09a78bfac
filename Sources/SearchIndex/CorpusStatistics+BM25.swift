import SearchModel

extension CorpusStatistics {
    /// The mean document length, BM25's avgdl.
    var averageLength: Double { BM25.averageLength(documents: documents, tokens: tokens) }
}
