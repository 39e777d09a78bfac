import FoundationEssentials
import Glibc
import Items

/// Okapi BM25 as SQLite FTS5's `bm25()` computes it (ext/fts5/fts5_aux.c), so that the
/// index ranks as an FTS5 table with the same columns and weights would, but for `b`:
///
///     score = Σ_phrases idf × f × (k1 + 1) / (f + k1 × (1 − b + b × D / avgdl))
///
/// with k1 = 1.2 and b = 0.65 (FTS5 and Lucene use 0.75; 0.6–0.65 ranked CACM's long
/// requests better, +0.007 nDCG@10, and Cranfield's alike — BENCHMARKS.md); `f` the phrase's weighted frequency in the document (each hit
/// counts its column's weight: title 10, keywords 5, description 3, body 1); `D` the
/// document's length in tokens over all columns (tokens at the same position, as a CJK
/// unigram under its bigram, count once); `avgdl` the mean length; and
/// `idf = ln((N − n + 0.5) / (n + 0.5))`, where `n` documents of `N` hold the phrase, or
/// 1e-6 when that is not positive (a phrase in more than half the documents adds almost
/// nothing). Higher is better here; FTS5 reports the negation.
public enum BM25 {
    /// avgdl: tokens per live document, at least 1 (documents with no tokens would otherwise
    /// make it 0 and every length infinitely long), 1 for an empty index. The one formula
    /// every writer, merge, migration and search uses, so that a segment records the value
    /// its bounds were built with.
    static func averageLength(documents: Int, tokens: Int) -> Double {
        documents > 0 ? max(1, Double(tokens) / Double(documents)) : 1
    }

    public static let k1 = 1.2
    public static let b = 0.65

    /// Column weights in column order: title, keywords, description, body.
    public static let columnWeights: [Int] = [10, 5, 3, 1]

    public static func idf(documents: Int, containing: Int) -> Double {
        let value = log((Double(documents) - Double(containing) + 0.5) / (Double(containing) + 0.5))
        return value > 0 ? value : 1e-6
    }

    /// The term part of one phrase's contribution, without its idf. Written as
    /// f(k1+1) / (f + (k1(1−b) + (k1·b/avgdl)·D)) — the document's norm first — the form the
    /// search loops compute with ``Norm``, so that every path gives the same bits.
    @inline(__always)
    public static func saturation(frequency f: Double, length d: Double, averageLength avgdl: Double) -> Double {
        Norm(averageLength: avgdl).saturation(f, length: d)
    }

    /// The constants of one average length, hoisted out of the search loops.
    struct Norm {
        let constant: Double
        let perToken: Double

        @inline(__always) init(averageLength avgdl: Double) {
            constant = k1 * (1 - b)
            perToken = k1 * b / avgdl
        }

        @inline(__always) func saturation(_ f: Double, length d: Double) -> Double {
            (f * (k1 + 1)) / (f + (constant + perToken * d))
        }
    }

    /// How far a block bound computed with average length `built` may be exceeded when
    /// scoring with `now`: the saturation grows with avgdl, by at most the ratio.
    @inline(__always)
    public static func boundFactor(builtWith built: Double, scoringWith now: Double) -> Double {
        now > built ? now / built : 1
    }
}
