/// Pseudo-relevance feedback for long requests — RM3 (Abdul-Jaleel et al., 2004), as
/// Anserini runs it over BM25: the first answer's best documents stand for what the request
/// is about, and the words they share most, weighted by how well each document matched,
/// score the first answer's best documents again, below the request's own words.
///
/// A request of a sentence or a paragraph names its subject in its own words; the documents
/// that answer it often use others ("sensitivity of eigenvalues" and "perturbation").
/// Applies only from ``minimumTerms`` distinct terms on — where the coordination bonus of
/// short queries has faded to nothing — so short searches keep their behaviour and speed
/// (measured: from 4 or 5 words on, Cranfield's nine short requests gain and CACM loses,
/// 0.002 and 0.001 nDCG@10; BENCHMARKS.md). A router runs it over its shards as one index
/// does (``RoutedFeedback``, ``FirstAnswer``): the same added words at the same weights.
/// Pure: the caller reads and analyses the documents (``IndexSearch``).
public enum RelevanceFeedback {
    /// The first answer's documents read at most (Anserini's `fbDocs`).
    public static let documents = 10
    /// A document is read only when its first-stage score is at least this share of the best
    /// one's: how many documents stand for the request then follows what the first answer
    /// shows. Where many match about as well as the best (a broad subject), all ten are
    /// read; where the best stands alone (a precise claim with one answer), too few remain
    /// for a word to be shared by ``minimumDocuments`` of them, and the first answer stands.
    /// Measured on the four collections of the panel, 0.7 chosen in every leave-one-out fold
    /// (BENCHMARKS.md).
    public static let leadShare = 0.7

    /// How many of a first answer's best documents feedback reads, given their first-stage
    /// scores best first: those of the first ``documents`` scoring at least ``leadShare`` of
    /// the best. One index and a router count them alike.
    public static func leading(_ scores: some Sequence<Double>) -> Int {
        var count = 0
        var best = 0.0
        for score in scores.prefix(documents) {
            if count == 0 { best = score } else if score < leadShare * best { break }
            count += 1
        }
        return count
    }
    /// The first answer's documents the added words rerank: the second stage scores these
    /// again rather than searching the whole index with the added words (which cost long
    /// requests four times their first search at 1,000,000 items, BENCHMARKS.md).
    public static let depth = 200
    /// Words added at most (Anserini's `fbTerms`; 5 costs CACM 0.004 nDCG@10, 20 gains nothing).
    public static let terms = 10
    /// The weight of the best added word; the others in proportion to their share of the
    /// relevance model (Anserini's original-query weight of 0.5: the request and the model
    /// count alike).
    static let weight = 0.5
    /// Feedback documents a word must occur in: a word of one document is that document's,
    /// not the subject's (measured: +0.01 nDCG@10 on CACM, BENCHMARKS.md).
    public static let minimumDocuments = 2
    /// Bytes of each of a document's fields read for its words: the opening of a long
    /// article says what it is about, and reading ten bodies of up to 256 KB whole would cost
    /// a long request more than its search.
    public static let readingBytes = 32 * 1024
    /// Words shorter than this many bytes, or made of digits, are not added.
    static let minimumWordBytes = 3

    /// An added word and its weight.
    public struct Term: Sendable, Equatable {
        public var token: [UInt8]
        public var weight: Double

        public init(token: [UInt8], weight: Double) {
            self.token = token
            self.weight = weight
        }
    }

    /// One document of a first answer as feedback reads it: its first-stage score and order
    /// key, its length (each column's tokens at their BM25 weight) and each distinct word
    /// form it holds with its stem class and weighted count. What a shard sends a router
    /// for the documents of the whole index's best ``documents`` that it holds.
    public struct Reading: Sendable, Equatable {
        /// One word of a document as feedback reads it: its stem class and its count.
        public struct Word: Sendable, Equatable {
            public var form: [UInt8]
            public var stemClass: [UInt8]
            public var count: Double

            public init(form: [UInt8], stemClass: [UInt8], count: Double) {
                self.form = form
                self.stemClass = stemClass
                self.count = count
            }
        }

        public var score: Double
        public var key: UInt64
        public var length: Double
        public var words: [Word]

        public init(score: Double, key: UInt64, length: Double, words: [Word]) {
            self.score = score
            self.key = key
            self.length = length
            self.words = words
        }
    }

    /// The added words for the readings of a first answer's best documents, in its order,
    /// `excluded` the request's own stem classes: each class counted over its forms and
    /// spelled as its most frequent form (ties by byte order). One index and a router run
    /// this same function on the same readings, so both add the same words at the same
    /// weights. Counts are sums of whole column weights, exact in any order.
    public static func expansion(of readings: [Reading], excluding excluded: Set<[UInt8]>, frequency: ([UInt8]) -> Int, documentCount: Int) -> [Term] {
        var spellings: [[UInt8]: [[UInt8]: Double]] = [:]
        let documents = readings.map { reading in
            var document = Document(score: reading.score, counts: [:], length: reading.length)
            for word in reading.words {
                document.counts[word.stemClass, default: 0] += word.count
                spellings[word.stemClass, default: [:]][word.form, default: 0] += word.count
            }
            return document
        }
        let spelled = spellings.mapValues { forms in
            forms.max { $0.value != $1.value ? $0.value < $1.value : $1.key.lexicographicallyPrecedes($0.key) }?.key ?? []
        }
        return expansion(documents, spellings: spelled, excluding: excluded, frequency: frequency, documentCount: documentCount)
    }

    /// The words whose document frequency ``expansion(of:excluding:frequency:documentCount:)``
    /// may read for these readings, in the order it would read them: a router asks every
    /// shard for their counts before it chooses.
    public static func candidates(of readings: [Reading], excluding excluded: Set<[UInt8]>) -> [[UInt8]] {
        var asked: [[UInt8]] = []
        _ = expansion(of: readings, excluding: excluded, frequency: { asked.append($0); return .max }, documentCount: 0)
        return asked
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
            guard frequency(spelled) <= documentCount / 2 else { continue }
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

extension RelevanceFeedback {
    /// The whole index's first answer to a long request, from its shards' best first-stage
    /// candidates (``RoutedFeedback/firstStage``) merged in the order one index keeps them
    /// (score, then order key): how many of its best ``depth`` and best ``documents`` each
    /// shard holds, and those documents' readings in that order. Pure: what a router runs.
    public struct FirstAnswer: Sendable {
        /// The best ``depth`` candidates, best first, each with the shard that holds it.
        public let best: [(candidate: FirstStageCandidate, shard: Int)]

        public init(_ lists: [(shard: Int, candidates: [FirstStageCandidate])]) {
            let all = lists.flatMap { list in list.candidates.prefix(RelevanceFeedback.depth).map { (candidate: $0, shard: list.shard) } }
            best = Array(all.sorted { a, b in
                if a.candidate.score != b.candidate.score { return a.candidate.score > b.candidate.score }
                if a.candidate.key != b.candidate.key { return a.candidate.key < b.candidate.key }
                return a.shard < b.shard
            }.prefix(RelevanceFeedback.depth))
        }

        /// How many of the best `count` the shard holds.
        public func share(of shard: Int, in count: Int) -> Int {
            best.prefix(count).filter { $0.shard == shard }.count
        }

        /// How many of the best feedback reads (``RelevanceFeedback/leading(_:)``).
        public var leading: Int { RelevanceFeedback.leading(best.lazy.map(\.candidate.score)) }

        /// The readings of the ``leading`` documents, in the first answer's order, each taken
        /// only from the shard that holds its document; a document its shard did not read
        /// (its item gone between rounds) is left out, as one index leaves out a document it
        /// cannot read.
        public func ordered(_ readings: [(shard: Int, readings: [Reading])]) -> [Reading] {
            var byDocument: [Int: [UInt64: Reading]] = [:]
            for (shard, list) in readings {
                for reading in list where byDocument[shard]?[reading.key] == nil { byDocument[shard, default: [:]][reading.key] = reading }
            }
            return best.prefix(leading).compactMap { byDocument[$0.shard]?[$0.candidate.key] }
        }
    }
}
