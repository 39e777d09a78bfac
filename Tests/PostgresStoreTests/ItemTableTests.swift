import Dispatch
import Foundation
import Postgres
import PostgresStore
import SearchIndex
import SearchlightTestSupport
import Synchronization
import Testing

/// Item writes in the shared store from several connections at once.
@Suite struct ItemTableTests {
    @Test func twoOwnersPushingOneNewIdentifierAtOnceCannotBothWin() throws {
        let url = try PostgresCluster.shared.get().newDatabase()
        let stores = try ["alpha", "beta"].map { (owner: $0, items: PostgresItemStore(try SharedStore(url: url))) }
        for round in 0..<20 {
            let id = "race-\(round)"
            let winners = Mutex<[String]>([])
            let refused = Mutex<[SearchIndexError.Kind]>([])
            DispatchQueue.concurrentPerform(iterations: stores.count) { index in
                let (owner, items) = stores[index]
                var item = SearchableItem(uniqueIdentifier: id, title: "\(owner) \(round)")
                item.owner = owner
                var batch = SearchIndex.Batch(upserts: [item])
                batch.owner = owner
                do {
                    _ = try items.commit(batch, now: Date())
                    winners.withLock { $0.append(owner) }
                } catch let error as SearchIndexError {
                    refused.withLock { $0.append(error.kind) }
                } catch {
                    Issue.record("unexpected \(error)")
                }
            }
            let winner = winners.withLock { $0 }
            #expect(winner.count == 1, "round \(round): \(winner) both wrote \(id)")
            #expect(refused.withLock { $0 } == [.forbidden])
            let stored = try PostgresConnection(url: url).execute("SELECT owner FROM items WHERE id = $1", [.text(id)]).first?.string(0)
            #expect(stored == winner.first)
        }
    }
}
