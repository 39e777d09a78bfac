import Postgres

/// The shared store's tables, created and migrated in one place. Each migration runs
/// once, in order, in its own transaction, under an advisory lock so that workers and
/// nodes starting together do not race; `schema_migrations` records what ran.
///
/// Times are seconds since 1970 (`double precision`), as the embedded files keep them;
/// leases are compared with the database's own clock, so machines need not agree.
enum PostgresSchema {
    static let migrations: [String] = [
        // 1: the frontier, items and their change log, the service's tables.
        """
        CREATE TABLE seeds(url text PRIMARY KEY, added double precision NOT NULL);
        CREATE TABLE urls(
            id bigserial PRIMARY KEY,
            url text NOT NULL UNIQUE,
            origin text NOT NULL,
            depth integer NOT NULL,
            found_on text,
            from_sitemap boolean NOT NULL DEFAULT false,
            priority double precision NOT NULL DEFAULT 0.5,
            redirects integer NOT NULL DEFAULT 0,
            fetched boolean NOT NULL DEFAULT false,
            state text NOT NULL DEFAULT 'new',
            due double precision NOT NULL,
            fetched_at double precision,
            status integer,
            etag text,
            last_modified text,
            content_hash text,
            item_id text,
            failures integer NOT NULL DEFAULT 0,
            first_failure double precision,
            "interval" double precision,
            changefreq text,
            sitemap_lastmod double precision,
            changes integer NOT NULL DEFAULT 0,
            redirected_to text,
            lease_owner text,
            lease_until double precision);
        CREATE INDEX urls_new ON urls(origin, from_sitemap DESC, depth, id) WHERE NOT fetched;
        CREATE INDEX urls_revisit ON urls(origin, due) WHERE fetched;
        CREATE INDEX urls_due ON urls(due);
        CREATE INDEX urls_lease ON urls(lease_owner) WHERE lease_owner IS NOT NULL;
        CREATE TABLE hosts(
            origin text PRIMARY KEY,
            robots_status integer, robots_body bytea, robots_fetched double precision,
            association_fetched double precision, aasa bytea, assetlinks bytea,
            backoff_until double precision, sitemaps_fetched double precision, next_allowed double precision,
            lease_owner text, lease_until double precision);
        CREATE TABLE contents(hash text PRIMARY KEY, url text NOT NULL);

        CREATE TABLE items(
            id text PRIMARY KEY,
            owner text,
            source text NOT NULL,
            domain_id text COLLATE "C",
            expires double precision,
            updated double precision NOT NULL,
            body text NOT NULL);
        CREATE INDEX items_owner ON items(owner);
        CREATE INDEX items_domain ON items(domain_id);
        CREATE INDEX items_expires ON items(expires) WHERE expires IS NOT NULL;
        CREATE TABLE item_log(
            seq bigserial PRIMARY KEY,
            id text NOT NULL,
            op char(1) NOT NULL,
            at double precision NOT NULL);
        CREATE TABLE batches(name text PRIMARY KEY, state bytea NOT NULL, updated double precision NOT NULL);
        CREATE TABLE engagement(id text PRIMARY KEY, impressions bigint NOT NULL DEFAULT 0, clicks bigint NOT NULL DEFAULT 0);

        CREATE TABLE api_keys(
            id text PRIMARY KEY, owner text NOT NULL, domain text NOT NULL, secret_hash bytea NOT NULL,
            created double precision NOT NULL, revoked double precision);
        CREATE TABLE service_secrets(name text PRIMARY KEY, value bytea NOT NULL);
        CREATE TABLE activities(
            id text PRIMARY KEY, owner text NOT NULL, activity_type text NOT NULL, webpage_url text NOT NULL,
            first_reported double precision NOT NULL, last_reported double precision NOT NULL,
            devices integer NOT NULL DEFAULT 0, networks integer NOT NULL DEFAULT 0);
        CREATE TABLE activity_devices(
            activity text NOT NULL, device_hash bytea NOT NULL, network_hash bytea NOT NULL, reported double precision NOT NULL,
            PRIMARY KEY(activity, device_hash));

        CREATE TABLE runs(id text PRIMARY KEY, worker text NOT NULL, started double precision NOT NULL, report text NOT NULL);
        CREATE TABLE nodes(name text PRIMARY KEY, applied bigint NOT NULL, updated double precision NOT NULL);
        CREATE TABLE workers(name text PRIMARY KEY, seen double precision NOT NULL);
        """,
        // 2: the SimHashes of indexed pages, for the crawl's near-duplicate check.
        """
        CREATE TABLE fingerprints(url text PRIMARY KEY, origin text NOT NULL, simhash bigint NOT NULL);
        CREATE INDEX fingerprints_origin ON fingerprints(origin);
        """,
        // 3: the change log's floor: entries up to it were trimmed (``LogTrimmer``).
        """
        CREATE TABLE log_floor(id boolean PRIMARY KEY DEFAULT true CHECK (id), seq bigint NOT NULL);
        INSERT INTO log_floor(id, seq) VALUES (true, 0);
        """,
        // 4: an item is (owner, id), the operator's owner ''; the log, engagement and
        // activities say whose; anonymous engagement is counted by network.
        """
        UPDATE items SET owner = '' WHERE owner IS NULL;
        ALTER TABLE items ALTER COLUMN owner SET DEFAULT '', ALTER COLUMN owner SET NOT NULL;
        ALTER TABLE items DROP CONSTRAINT items_pkey;
        ALTER TABLE items ADD PRIMARY KEY (owner, id);
        DROP INDEX items_owner;
        CREATE INDEX items_id ON items(id);
        ALTER TABLE item_log ADD COLUMN owner text NOT NULL DEFAULT '';
        UPDATE item_log l SET owner = i.owner FROM items i WHERE i.id = l.id;
        ALTER TABLE engagement RENAME TO engagement_v3;
        CREATE TABLE engagement(
            owner text NOT NULL, id text NOT NULL, impressions bigint NOT NULL DEFAULT 0, clicks bigint NOT NULL DEFAULT 0,
            anonymous_impressions bigint NOT NULL DEFAULT 0, anonymous_clicks bigint NOT NULL DEFAULT 0,
            anonymous_networks bigint NOT NULL DEFAULT 0, PRIMARY KEY(owner, id));
        INSERT INTO engagement(owner, id, impressions, clicks)
            SELECT i.owner, e.id, e.impressions, e.clicks FROM engagement_v3 e JOIN items i ON i.id = e.id;
        DROP TABLE engagement_v3;
        CREATE TABLE engagement_networks(
            owner text NOT NULL, id text NOT NULL, network bytea NOT NULL, impression_day integer NOT NULL, click_day integer,
            PRIMARY KEY(owner, id, network));
        CREATE INDEX engagement_networks_day ON engagement_networks(impression_day);
        ALTER TABLE activity_devices ADD COLUMN owner text;
        UPDATE activity_devices d SET owner = a.owner FROM activities a WHERE a.id = d.activity;
        DELETE FROM activity_devices WHERE owner IS NULL;
        ALTER TABLE activity_devices ALTER COLUMN owner SET NOT NULL;
        ALTER TABLE activity_devices DROP CONSTRAINT activity_devices_pkey;
        ALTER TABLE activity_devices ADD PRIMARY KEY (owner, activity, device_hash);
        ALTER TABLE activities DROP CONSTRAINT activities_pkey;
        ALTER TABLE activities ADD PRIMARY KEY (owner, id);
        """,
        // Each URL keeps the reason of its verdict, for `status --urls` and `crawl --refetch`.
        """
        ALTER TABLE urls ADD COLUMN reason text;
        CREATE INDEX urls_reason ON urls(reason) WHERE reason IS NOT NULL;
        """,
        // 6: items an ingest wrote (pushed items with an app record), for `status`.
        """
        ALTER TABLE items ADD COLUMN ingested boolean NOT NULL DEFAULT false;
        UPDATE items SET ingested = true WHERE jsonb_typeof(body::jsonb -> 'record') = 'object';
        """,
        // 7: the store's identity, made once with its schema: a node's local copy records
        // which store it follows, so a copy of one store is never taken for another's.
        """
        CREATE TABLE store_identity(id boolean PRIMARY KEY DEFAULT true CHECK (id), store text NOT NULL, created double precision NOT NULL);
        INSERT INTO store_identity(store, created)
            VALUES (md5(random()::text || clock_timestamp()::text || pg_backend_pid()::text), extract(epoch from clock_timestamp()));
        """,
        // 8: which shard each search node holds (`serve --shard K/N`; 0/1 is the whole index).
        """
        ALTER TABLE nodes ADD COLUMN shard text NOT NULL DEFAULT '0/1';
        """,
        // 9: where each search node answers, for routers (`serve --router`).
        """
        ALTER TABLE nodes ADD COLUMN address text;
        """,
        // 10: each item's and log entry's shard hash (`Shard.hash`, as a signed bigint), so a
        // shard node reads only its shard's changes and snapshot. Older rows keep NULL and
        // are checked by the node itself.
        """
        ALTER TABLE items ADD COLUMN key_hash bigint;
        ALTER TABLE item_log ADD COLUMN key_hash bigint;
        """,
        // 11: how many shards routers split searches over (`searchlight shards --set N`);
        // NULL until set: routers follow the count most live nodes hold.
        """
        ALTER TABLE store_identity ADD COLUMN shards integer CHECK (shards BETWEEN 1 AND 1024);
        """,
        // 12: the rule behind a URL's verdict (`invalid-item`: which field broke which rule),
        // for `status --urls`.
        """
        ALTER TABLE urls ADD COLUMN detail text;
        """,
        // 13: when an IndexNow notice named a URL (claimed ahead of routine revisits until
        // fetched), and the crawls' freshness counts (``CrawlFreshness``).
        """
        ALTER TABLE urls ADD COLUMN noticed double precision;
        CREATE INDEX urls_noticed ON urls(origin, noticed) WHERE noticed IS NOT NULL;
        CREATE TABLE freshness(metric text NOT NULL, bucket integer NOT NULL, amount bigint NOT NULL, PRIMARY KEY(metric, bucket));
        """,
    ]

    /// The lock key migrations take (any constant; "SLMIGRAT" in ASCII).
    static let migrationLock: Int64 = 0x534C_4D49_4752_4154

    /// Applies every migration not yet applied.
    static func migrate(_ session: PostgresSession) throws {
        try session.run { connection in
            try connection.execute("SELECT pg_advisory_lock($1)", [.int(migrationLock)])
            defer { _ = try? connection.execute("SELECT pg_advisory_unlock($1)", [.int(migrationLock)]) }
            try connection.execute("CREATE TABLE IF NOT EXISTS schema_migrations(version integer PRIMARY KEY, applied double precision NOT NULL)")
            let applied = try connection.execute("SELECT coalesce(max(version), 0) FROM schema_migrations").first?.int(0) ?? 0
            guard applied <= migrations.count else {
                throw PostgresError(.statement, "the store's schema is version \(applied), newer than this searchlight knows (\(migrations.count)); upgrade searchlight")
            }
            for (index, sql) in migrations.enumerated() where index + 1 > applied {
                try connection.transaction {
                    try connection.executeScript(sql)
                    try connection.execute("INSERT INTO schema_migrations(version, applied) VALUES($1, extract(epoch from now()))", [.int(Int64(index + 1))])
                }
            }
        }
    }
}
