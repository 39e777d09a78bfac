import CZstd
import SQLite

/// The dictionaries bodies are compressed with (``StoredText``'s format 2), kept in
/// `body_dictionaries`. A body is a few kilobytes: compressed alone, most of what it could
/// share with the others (the language's words, a site's phrases) is spelt out again in each.
/// A zstd dictionary trained on the index's own bodies gives every body that shared part at
/// no cost per body, and each body stays readable alone (a snippet or a phrase check reads one
/// body, not a block of them). On the panel's text: 14 % smaller than DEFLATE alone on
/// trafilatura's pages, 25–33 % on MED's, CACM's and LISA's abstracts (BENCHMARKS.md, issue 58).
///
/// An index makes its first dictionary when a write finds it holding ``firstTokens`` tokens:
/// from its newest bodies, up to ``sampleBytes``. Until then, and for the bodies written
/// before, DEFLATE alone. A dictionary learnt from the first pages of a crawl fits what comes
/// later less well (one trained on abstracts leaves the panel's web pages 10 % larger than one
/// trained on pages), so another is trained from the newest bodies each time the index has
/// grown ``growth`` times since the last (five at 10M benchmark items, 64 KB each). A
/// dictionary is never changed or removed once written: bodies name theirs by id.
enum BodyDictionary {
    static let schema = "CREATE TABLE IF NOT EXISTS body_dictionaries(id INTEGER PRIMARY KEY, dictionary BLOB NOT NULL, made REAL NOT NULL);"

    /// A dictionary's bytes at most (zstd's advice: about a hundredth of the samples).
    static let capacity = 64 << 10
    /// Tokens (BM25's count) the index holds before its first dictionary is trained: about a
    /// megabyte of text.
    static let firstTokens = 200_000
    /// The newest bodies' text read for training, at most: zstd trains best on about 100
    /// times the dictionary's size; more costs training time (~0.1 s a megabyte).
    static let sampleBytes = 8 << 20
    /// Fewer bytes of bodies than this and no dictionary is trained (the next try waits until
    /// the index holds twice the tokens).
    static let minimumSampleBytes = 1 << 20
    /// Bodies read for a sample, at most.
    static let maximumSamples = 20_000
    /// How many times the index's tokens grow between one dictionary and the next.
    static let growth = 8

    /// The tokens at which the next training is due, after one at `tokens` that made a
    /// dictionary (`trained`) or could not (too little text: tried again at twice the tokens).
    static func nextDue(after tokens: Int, trained: Bool) -> Int {
        let (due, overflow) = tokens.multipliedReportingOverflow(by: trained ? growth : 2)
        return overflow ? .max : max(due, firstTokens)
    }

    /// The newest dictionary, if the index has one.
    static func current(_ connection: SQLiteConnection) throws -> (id: Int64, bytes: [UInt8])? {
        let statement = try connection.statement("SELECT id, dictionary FROM body_dictionaries ORDER BY id DESC LIMIT 1")
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return (statement.int64(0), statement.blob(1) ?? [])
    }

    /// The bytes of dictionary `id`, if it exists.
    static func bytes(id: Int64, _ connection: SQLiteConnection) throws -> [UInt8]? {
        let statement = try connection.statement("SELECT dictionary FROM body_dictionaries WHERE id = ?")
        defer { statement.reset() }
        statement.bind(1, id)
        guard try statement.step() else { return nil }
        return statement.blob(0)
    }

    /// Trains a dictionary when one is due (``nextDue(after:trained:)``): called by every
    /// write that stored bodies, inside its transaction; the write after it compresses with it.
    static func trainIfDue(_ connection: SQLiteConnection, tokens: Int, now: Double,
                           dictionaries: BodyDictionaries) throws {
        let due = try connection.statement("SELECT value FROM meta WHERE key = 'body_dictionary_due'")
        let threshold = try due.step() ? Int(due.string(0) ?? "") ?? firstTokens : firstTokens
        due.reset()
        guard tokens >= threshold else { return }
        let trained = try train(connection, dictionaries: dictionaries)
        if let trained {
            try connection.statement("INSERT INTO body_dictionaries(dictionary, made) VALUES(?, ?)").run([.blob(trained), .real(now)])
        }
        try connection.statement("INSERT INTO meta(key, value) VALUES('body_dictionary_due', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
            .run([.text(String(nextDue(after: tokens, trained: trained != nil)))])
    }

    /// A dictionary trained on the newest bodies, or nil when there is too little text or
    /// zstd cannot make one of it.
    private static func train(_ connection: SQLiteConnection, dictionaries: BodyDictionaries) throws -> [UInt8]? {
        let statement = try connection.statement("SELECT body FROM item_bodies ORDER BY rowid DESC LIMIT ?")
        defer { statement.reset() }
        statement.bind(1, Int64(maximumSamples))
        var samples: [UInt8] = []
        var sizes: [Int] = []
        while samples.count < sampleBytes, try statement.step() {
            var text = StoredText.text(statement, 0, dictionaries: dictionaries, connection: connection)
            text.withUTF8 { bytes in
                let taken = bytes.prefix(sampleBytes - samples.count)
                guard !taken.isEmpty else { return }
                samples.append(contentsOf: taken)
                sizes.append(taken.count)
            }
        }
        guard samples.count >= minimumSampleBytes else { return nil }
        var dictionary = [UInt8](repeating: 0, count: capacity)
        let made = dictionary.withUnsafeMutableBytes { output in
            samples.withUnsafeBytes { input in
                ZDICT_trainFromBuffer(output.baseAddress, capacity, input.baseAddress, sizes, UInt32(sizes.count))
            }
        }
        guard ZDICT_isError(made) == 0, made > 0 else { return nil }
        return Array(dictionary.prefix(made))
    }
}
