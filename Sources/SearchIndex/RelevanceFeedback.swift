import Items
/// Pseudo-relevance feedback for long requests — RM3 (Abdul-Jaleel et al., 2004), as
/// Anserini runs it over BM25: the first answer's best documents stand for what the request
/// is about, and the words they share most, weighted by how well each document matched,
/// score the first answer's best documents again, below the request's own words.
///
/// A request of a sentence or a paragraph names its subject in its own words; the documents
/// that answer it often use others ("sensitivity of eigenvalues" and "perturbation").
/// Applies only from ``minimumTerms`` distinct terms on — where the coordination bonus of
/// short queries has faded to nothing — so short searches keep their behaviour and speed,
/// and a router's shards, which cannot read the whole index's first answer, answer every
/// request of up to 6 words as one index does (measured: from 4 or 5 words on, Cranfield's
/// nine short requests gain, the collections' nDCG@10 by 0.002; BENCHMARKS.md).
/// Pure: the caller reads and analyses the documents (``IndexSearch``).
enum RelevanceFeedback {
    /// Distinct query terms from which a request's answer is scored again.
    static let minimumTerms = 2 * QueryPlan.bonusTerms + 1
    /// The first answer's documents read (Anserini's `fbDocs`).
    static let documents = 10
    /// The first answer's documents the added words rerank: the second stage scores these
    /// again rather than searching the whole index with the added words (which cost long
    /// requests four times their first search at 1,000,000 items, BENCHMARKS.md).
    static let depth = 200
    /// Words added at most (Anserini's `fbTerms`; 5 costs CACM 0.004 nDCG@10, 20 gains nothing).
    static let terms = 10
    /// The weight of the best added word; the others in proportion to their share of the
    /// relevance model (Anserini's original-query weight of 0.5: the request and the model
    /// count alike).
    static let weight = 0.5
    /// Feedback documents a word must occur in: a word of one document is that document's,
    /// not the subject's (measured: +0.01 nDCG@10 on CACM, BENCHMARKS.md).
    static let minimumDocuments = 2
    /// Words shorter than this many bytes, or made of digits, are not added.
    static let minimumWordBytes = 3

    /// An added word and its weight.
    struct Term: Equatable {
        var token: [UInt8]
        var weight: Double
    }

    /// One document of the first answer: its score, and its words' weighted counts (each
    /// column's occurrences at its BM25 weight), keyed by word class, and their sum.
    struct Document {
        var score: Double
        var counts: [[UInt8]: Double]
        var length: Double
    }

    /// The relevance model P(w|R) = Σ_d P(d|Q) · P(w|d), with P(d|Q) the document's share of
    /// the scores and P(w|d) its weighted count over its length; the ``terms`` most likely
    /// word classes not in `excluded` (the request's own), in at least ``minimumDocuments``
    /// documents and, spelled as `spellings` says, in at most half the index (BM25 gives
    /// those almost nothing), weighted relative to the first. Ties go to the class first in
    /// byte order, so the expansion is a function of its inputs.
    static func expansion(_ documents: [Document], spellings: [[UInt8]: [UInt8]], excluding excluded: Set<[UInt8]>,
                          frequency: ([UInt8]) -> Int, documentCount: Int) -> [Term] {
        let total = documents.reduce(0) { $0 + max(0, $1.score) }
        guard total > 0 else { return [] }
        var model: [[UInt8]: Double] = [:]
        var holding: [[UInt8]: Int] = [:]
        for document in documents where document.score > 0 && document.length > 0 {
            let share = document.score / total
            for (word, count) in document.counts where isWord(word) && !excluded.contains(word) {
                model[word, default: 0] += share * count / document.length
                holding[word, default: 0] += 1
            }
        }
        let ranked = model.filter { holding[$0.key, default: 0] >= minimumDocuments }
            .sorted { $0.value != $1.value ? $0.value > $1.value : $0.key.lexicographicallyPrecedes($1.key) }
        var chosen: [Term] = []
        for (word, probability) in ranked where chosen.count < terms {
            let spelled = spellings[word] ?? word
            guard 2 * frequency(spelled) <= documentCount else { continue }
            chosen.append(Term(token: spelled, weight: probability))
        }
        guard let best = chosen.first?.weight, best > 0 else { return [] }
        return chosen.map { Term(token: $0.token, weight: weight * $0.weight / best) }
    }

    /// Long enough, and not a digit string.
    static func isWord(_ token: [UInt8]) -> Bool {
        token.count >= minimumWordBytes && !token.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }
}
