import Items
extension SegmentSearcher {
    /// The positions in `rowids` (ascending) of the documents `query` matches, with their order
    /// keys: a document matches when it holds every token of one of the query's units (a
    /// phrase's tokens, in any order). One pass per segment, its documents in ordinal order
    /// with a cursor per token, so the cost follows the rowids' count times the units', not
    /// the postings' lengths: what a search near a place needs to find the matches among a
    /// circle's places without ranking the index.
    func matching(_ query: PostingsQuery, among rowids: [Int64]) throws -> [(position: Int, key: UInt64)] {
        var matched: [(position: Int, key: UInt64)] = []
        let units = query.clauses.flatMap(\.units)
        for segment in segments {
            let inside = rowids[rowids.firstIndex(atLeast: segment.info.minimumRowid)..<rowids.firstIndex(atLeast: segment.info.maximumRowid + 1)]
            guard !inside.isEmpty else { continue }
            var ordinals: [(ordinal: Int32, position: Int)] = []
            let documents = segment.rowids
            let keys = segment.documents.keys
            var cursor = 0
            for position in inside.indices {
                cursor = documents.firstIndex(atLeast: rowids[position], from: cursor)
                if cursor < documents.count, documents[cursor] == rowids[position] { ordinals.append((Int32(cursor), position)) }
            }
            guard !ordinals.isEmpty else { continue }
            // A cursor per token of each unit; a unit with a token the segment lacks matches nothing here.
            var cursors: [[PostingCursor]] = []
            defer { for unit in cursors { for cursor in unit { cursor.release() } } }
            for unit in units {
                var opened: [PostingCursor] = []
                for token in unit.tokens {
                    guard let term = token.withUnsafeBytes({ segment.term($0) }) else { break }
                    let postings = reader.segments.postings(segment: segment, term: term)
                    opened.append(PostingCursor(postings, documentLimit: segment.documentCount))
                }
                if opened.count == unit.tokens.count {
                    cursors.append(opened)
                } else {
                    for cursor in opened { cursor.release() }
                }
            }
            guard !cursors.isEmpty else { continue }
            for (ordinal, position) in ordinals {
                var found = false
                for unit in cursors.indices where !found {
                    found = true
                    for token in cursors[unit].indices {
                        cursors[unit][token].advance(to: ordinal)
                        if cursors[unit][token].doc != ordinal { found = false }
                    }
                }
                if found { matched.append((position, keys[Int(ordinal)])) }
            }
        }
        return matched
    }
}
