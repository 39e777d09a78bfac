import Items
/// Reads arbitrary bytes as one term's postings in a segment of `documents` documents, every
/// way a search reads them — walked posting by posting, skipped ahead, read a window at a
/// time with block bounds, and as a merge decodes them — and returns how many postings were
/// seen. For the fuzzer (`scripts/fuzz.sh postings`): segments come from disk, and damaged
/// bytes must end a list, never a process.
public enum PostingsCheck {
    public static func read(_ bytes: [UInt8], blocks: Int, documents: Int) -> Int {
        let postings = TermPostings(bytes: bytes, blocks: max(0, blocks), documents: 0)
        var seen = 0
        var walk = PostingCursor(postings, documentLimit: documents)
        walk.next()
        while walk.doc != PostingCursor.end, seen < 1 << 20 {
            _ = walk.frequency
            seen += 1
            walk.next()
        }
        walk.release()
        var skipping = PostingCursor(postings, documentLimit: documents)
        var target: Int32 = 0
        while skipping.doc != PostingCursor.end, target < Int32(documents) {
            skipping.advance(to: target)
            _ = skipping.bound(from: target, below: target + 64)
            target += 37
        }
        skipping.release()
        var windows = PostingCursor(postings, documentLimit: documents)
        var lower: Int32 = 0
        while lower < Int32(documents) {
            while let run = windows.run(below: lower + 256) { seen += run.count }
            lower += 256
        }
        windows.release()
        (bytes + [UInt8](repeating: 0, count: PostingBlock.padding)).withUnsafeBytes { raw in
            SegmentMerger.forEachPosting(UnsafeRawBufferPointer(rebasing: raw[..<bytes.count]), blocks: max(0, blocks), limit: documents) { _, _ in seen += 1 }
        }
        return seen
    }
}
