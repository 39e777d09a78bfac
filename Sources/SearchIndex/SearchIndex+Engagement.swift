import FoundationEssentials
import Items
import SQLite
import SearchModel

/// An item's engagement: what keys reported for it, and what anonymous clients (the
/// search page) did, with the number of distinct networks those came from. The ranking
/// counts the anonymous part only once ``Ranking/anonymousNetworkThreshold`` networks
/// have contributed, so no one client can move an item (``Ranking/engagementCounts(_:)``).
public struct EngagementCounts: Sendable, Hashable {
    public var impressions = 0
    public var clicks = 0
    public var anonymousImpressions = 0
    public var anonymousClicks = 0
    public var anonymousNetworks = 0

    public init(impressions: Int = 0, clicks: Int = 0, anonymousImpressions: Int = 0, anonymousClicks: Int = 0, anonymousNetworks: Int = 0) {
        self.impressions = impressions
        self.clicks = clicks
        self.anonymousImpressions = anonymousImpressions
        self.anonymousClicks = anonymousClicks
        self.anonymousNetworks = anonymousNetworks
    }
}

extension SearchIndex {
    /// Anonymous contributions whose network has not reported on the item for this many
    /// days are forgotten (the network may count again after that).
    public static let anonymousEngagementRetentionDays = 90

    /// Adds impressions and clicks a key reported for an item; nothing when the item is
    /// gone (engagement never outlives its item).
    public func recordEngagement(_ key: ItemKey, impressions: Int, clicks: Int) throws(SearchIndexError) {
        try withConnection { connection in
            try connection.transaction {
                guard let rowid = try Self.rowid(key, connection) else { return }
                try connection.statement("""
                    INSERT INTO engagement(owner, uid, impressions, clicks) VALUES(?1, ?2, ?3, ?4)
                    ON CONFLICT(owner, uid) DO UPDATE SET impressions = impressions + excluded.impressions, clicks = clicks + excluded.clicks
                    """).run([.text(key.storedOwner), .text(key.identifier), .integer(Int64(max(0, impressions))), .integer(Int64(max(0, clicks)))])
                try Self.recordChanged([rowid], connection)
            }
        }
    }

    /// The row of the item with that key, or nil.
    private static func rowid(_ key: ItemKey, _ connection: SQLiteConnection) throws -> Int64? {
        let statement = try connection.statement("SELECT rowid FROM items WHERE owner = ? AND uid = ?")
        statement.bind([.text(key.storedOwner), .text(key.identifier)])
        return try statement.step() ? statement.int64(0) : nil
    }

    /// Engagement re-ranks its items: the change log says which.
    private static func recordChanged(_ rowids: [Int64], _ connection: SQLiteConnection) throws {
        guard !rowids.isEmpty else { return }
        var rows = ChangeLog.Rows()
        for rowid in rowids { rows.add(rowid) }
        try ChangeLog.record(rows, inserted: nil, connection)
    }

    /// Records what one client network did with an item on `day` (days since 1970): its
    /// impression counts once a day, its click once a day and only after an impression
    /// from the same network that day or the day before. Returns what counted.
    public func recordAnonymousEngagement(_ key: ItemKey, network: [UInt8], day: Int, impression: Bool, click: Bool)
        throws(SearchIndexError) -> AnonymousEngagement
    {
        try withConnection { connection in
            try connection.transaction { () throws -> AnonymousEngagement in
                let owner = SQLiteValue.text(key.storedOwner)
                let uid = SQLiteValue.text(key.identifier)
                guard let rowid = try Self.rowid(key, connection) else { return AnonymousEngagement(impression: false, click: false) }
                let read = try connection.statement("SELECT impression_day, click_day FROM engagement_networks WHERE owner = ? AND uid = ? AND network = ?")
                read.bind([owner, uid, .blob(network)])
                let known = try read.step()
                let impressionDay = known ? read.int(0) : Int.min
                let clickDay = known ? read.optionalInt(1) ?? Int.min : Int.min
                read.reset()
                let countsImpression = impression && impressionDay < day
                let seen = countsImpression ? day : impressionDay
                let countsClick = click && clickDay < day && seen >= day - 1
                guard countsImpression || countsClick else { return AnonymousEngagement(impression: false, click: false) }
                try connection.statement("""
                    INSERT INTO engagement_networks(owner, uid, network, impression_day, click_day) VALUES(?1, ?2, ?3, ?4, ?5)
                    ON CONFLICT(owner, uid, network) DO UPDATE SET impression_day = excluded.impression_day,
                        click_day = coalesce(excluded.click_day, click_day)
                    """).run([owner, uid, .blob(network), .integer(Int64(seen)), countsClick ? .integer(Int64(day)) : .null])
                try connection.statement("""
                    INSERT INTO engagement(owner, uid, anonymous_impressions, anonymous_clicks, anonymous_networks) VALUES(?1, ?2, ?3, ?4, ?5)
                    ON CONFLICT(owner, uid) DO UPDATE SET anonymous_impressions = anonymous_impressions + excluded.anonymous_impressions,
                        anonymous_clicks = anonymous_clicks + excluded.anonymous_clicks,
                        anonymous_networks = anonymous_networks + excluded.anonymous_networks
                    """).run([owner, uid, .integer(countsImpression ? 1 : 0), .integer(countsClick ? 1 : 0), .integer(known ? 0 : 1)])
                try connection.statement("DELETE FROM engagement_networks WHERE impression_day < ?")
                    .run([.integer(Int64(day - Self.anonymousEngagementRetentionDays))])
                try Self.recordChanged([rowid], connection)
                return AnonymousEngagement(impression: countsImpression, click: countsClick)
            }
        }
    }

    /// An item's engagement as stored; zero counts for an item with none.
    public func engagement(_ key: ItemKey) throws(SearchIndexError) -> EngagementCounts {
        try withConnection { connection in
            let statement = try connection.statement("""
                SELECT impressions, clicks, anonymous_impressions, anonymous_clicks, anonymous_networks FROM engagement WHERE owner = ? AND uid = ?
                """)
            statement.bind([.text(key.storedOwner), .text(key.identifier)])
            guard try statement.step() else { return EngagementCounts() }
            return EngagementCounts(impressions: statement.int(0), clicks: statement.int(1), anonymousImpressions: statement.int(2),
                                    anonymousClicks: statement.int(3), anonymousNetworks: statement.int(4))
        }
    }

    /// Sets items' engagement to counts kept elsewhere (a node's copy of the shared
    /// store's), in one transaction; items the copy does not hold are skipped.
    public func setEngagement(_ counts: [ItemKey: EngagementCounts]) throws(SearchIndexError) {
        guard !counts.isEmpty else { return }
        try withConnection { connection in
            try connection.transaction {
                var changed: [Int64] = []
                let statement = try connection.statement("""
                    INSERT INTO engagement(owner, uid, impressions, clicks, anonymous_impressions, anonymous_clicks, anonymous_networks)
                    VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)
                    ON CONFLICT(owner, uid) DO UPDATE SET impressions = excluded.impressions, clicks = excluded.clicks,
                        anonymous_impressions = excluded.anonymous_impressions, anonymous_clicks = excluded.anonymous_clicks,
                        anonymous_networks = excluded.anonymous_networks
                    """)
                for (key, count) in counts.sorted(by: { $0.key < $1.key }) {
                    guard let rowid = try Self.rowid(key, connection) else { continue }
                    changed.append(rowid)
                    try statement.run([.text(key.storedOwner), .text(key.identifier), .integer(Int64(count.impressions)),
                                       .integer(Int64(count.clicks)), .integer(Int64(count.anonymousImpressions)),
                                       .integer(Int64(count.anonymousClicks)), .integer(Int64(count.anonymousNetworks))])
                }
                try Self.recordChanged(changed, connection)
            }
        }
    }
}
