import FoundationEssentials
import ItemMapping
import Items
import SearchIndex

/// One source's ingest: finds what changed since the last run, renders the affected
/// records' items through their mappings, and sends them in batches with client state.
///
/// Changes are found by one scan per tracked table of each row's version (`Z_OPT`, or a
/// hash of a plain table's columns) against the versions kept in ``IngestState``. An item
/// is rendered again when its own row changed, and when a record its key paths read did:
/// from each changed, new or deleted row the key paths are walked backwards (to-one
/// columns pointing at it; the old and new owners of a member; join-table partners) to the
/// mapped rows that read it. Past ``fullRenderShare`` of the rows every mapped record is
/// rendered instead; either way an item whose content digest is unchanged is not written.
public final class Ingestor {
    public let database: SourceDatabase
    public let mappings: MappingSet
    let bound: [BoundMapping]
    let state: IngestState
    let sink: any IngestSink
    let plan: IngestPlan
    private var mappingIndexes: [String: Int?] = [:]
    /// Where items go as whose: nil for the operator (local index).
    public var owner: String?
    /// Told where the run is, on the run's thread: every ``progressEvery`` rows or records
    /// and at the end of each phase.
    public var progress: ((IngestProgress) -> Void)?
    static let progressEvery = 1024
    /// The run's clock for ``progress``: when it and its phase began.
    private var runStarted = Date()
    private var phaseStarted = Date()
    /// Past this share of changed rows, every mapped record is rendered.
    static let fullRenderShare = 0.2
    static let examplesKept = 5

    public init(database: SourceDatabase, mappings: MappingSet, bound: [BoundMapping], state: IngestState, sink: any IngestSink) {
        self.database = database
        self.mappings = mappings
        self.bound = bound
        self.state = state
        self.sink = sink
        plan = IngestPlan(mappings: bound, schema: database.schema)
    }

    /// The batch name under which the index keeps this source's client state.
    public var batchName: String { "ingest-" + mappings.source }

    public func run(now: @escaping () -> Date = Date.init) throws -> IngestReport {
        let started = Date()
        runStarted = started
        phaseStarted = started
        var report = IngestReport(source: mappings.source)
        database.refresh()
        let source = mappings.source
        var token = try recover(&report)
        let stored = try state.source(source)
        let hasRecords = try state.hasRecords(source: source)
        let full = report.resynchronised || stored?.digest != mappings.digest || !hasRecords
        var mark = Date()
        func lap(_ phase: String) {
            let now = Date()
            report.phases[phase, default: 0] += now.timeIntervalSince(mark)
            mark = now
        }
        let changes = try scanChanges(full: full)
        lap("scan")
        phaseStarted = Date()
        report.scannedRows = changes.scannedRows
        report.changedRows = changes.changedRows
        let renderAll = full || Double(changes.changedRows) > Self.fullRenderShare * Double(max(changes.scannedRows, 1))
        report.full = renderAll
        var batch = Batch()
        // This thread renders and stages each batch; the commit thread sends it, and while it
        // does, this thread records the batch before it and renders the next.
        let pipeline = CommitPipeline()
        let timer = SendTimer()
        // A batch still in flight when the run fails is settled by the next run's recovery.
        defer { _ = try? pipeline.wait() }
        // Waits for the batch in flight; returns its token once the index has it.
        let settle = { (report: inout IngestReport) throws -> Int64? in
            let waited = Date()
            defer { report.phases["wait", default: 0] += Date().timeIntervalSince(waited) }
            guard try pipeline.wait() else { return nil }
            token += 1
            report.batches += 1
            return token
        }
        // Records in the state a batch the index took, on this thread, while the commit
        // thread sends the next one.
        let record = { [self] (taken: Int64?, report: inout IngestReport) throws in
            guard let taken else { return }
            let applying = Date()
            try state.applyPending(source: source, token: taken)
            report.phases["apply", default: 0] += Date().timeIntervalSince(applying)
        }
        let flush = { [self] (batch: inout Batch, report: inout IngestReport) throws in
            let taken = try settle(&report)
            if !batch.isEmpty {
                let next = token + 1
                let (sink, name, upserts, deletions, changes) = (sink, batchName, batch.upserts, batch.deletions, batch.changes)
                let expected = token == 0 ? nil : String(token)
                let staging = Date()
                try state.stage(source: source, token: next, changes: changes)
                report.phases["stage", default: 0] += Date().timeIntervalSince(staging)
                pipeline.send {
                    let sending = Date()
                    try sink.commit(upserts: upserts, deletions: deletions, name: name, expected: expected, state: String(next))
                    timer.add(Date().timeIntervalSince(sending))
                }
                batch = Batch()
            }
            try record(taken, &report)
        }
        var claimed: [String: RecordSpot] = [:]
        var affected: [String: [RecordKey]] = [:]
        var decided = 0
        var toDecide: Int? = renderAll ? plan.mappedTables.reduce(0) { $0 + (changes.tables[$1].map { $0.rows + $0.deleted.count } ?? 0) } : nil
        // Each record decided; progress every so many.
        let step = { [self] (report: IngestReport) in
            decided += 1
            if decided % Self.progressEvery == 0 { tell(.rendering, done: decided, total: toDecide, report: report) }
        }
        if !renderAll {
            var roots: [String: [RecordKey]] = [:]
            for table in plan.mappedTables { roots[table] = try affectedRoots(table: table, changes: changes).sorted() }
            toDecide = roots.values.reduce(0) { $0 + $1.count }
            affected = roots
        }
        for table in plan.mappedTables {
            if renderAll {
                var previous = try state.items(source: source, table: table)
                try database.scan(table: table) { row in
                    let old = previous.removeValue(forKey: row.key)
                    try consider(row: row, table: table, key: row.key, old: old, checkHolder: false, claimed: &claimed, batch: &batch, report: &report, now: now())
                    if batch.count >= sink.batchLimit { try flush(&batch, &report) }
                    step(report)
                }
                for (key, old) in previous {
                    try consider(row: nil, table: table, key: key, old: old, checkHolder: false, claimed: &claimed, batch: &batch, report: &report, now: now())
                    if batch.count >= sink.batchLimit { try flush(&batch, &report) }
                    step(report)
                }
            } else {
                for key in affected[table] ?? [] {
                    let row = try database.row(table: table, key: key)
                    let old = try state.item(source: source, table: table, key: key)
                    try consider(row: row, table: table, key: key, old: old, checkHolder: true, claimed: &claimed, batch: &batch, report: &report, now: now())
                    if batch.count >= sink.batchLimit { try flush(&batch, &report) }
                    step(report)
                }
            }
        }
        try flush(&batch, &report)
        try record(try settle(&report), &report)
        tell(.rendering, done: decided, total: decided, report: report)
        lap("render")
        try state.finish(source: source, digest: mappings.digest, outcome: changes.outcome, now: now())
        lap("finish")
        report.phases["send"] = timer.seconds
        report.seconds = Date().timeIntervalSince(started)
        return report
    }

    /// Tells ``progress`` where the run is.
    func tell(_ phase: IngestProgress.Phase, done: Int, total: Int?, report: IngestReport) {
        guard let progress else { return }
        let now = Date()
        progress(IngestProgress(phase: phase, done: done, total: total, written: report.created + report.updated + report.deleted,
                                seconds: now.timeIntervalSince(runStarted), phaseSeconds: now.timeIntervalSince(phaseStarted)))
    }

    /// The bound mapping a record of `entity` renders with (its own, or its nearest
    /// ancestor's), looked up once per entity.
    private func mapping(for entity: String) -> BoundMapping? {
        if let known = mappingIndexes[entity] { return known.map { bound[$0] } }
        let name = mappings.mapping(for: entity, parent: database.schema.parent)?.entity
        let index = bound.firstIndex { $0.mapping.entity == name }
        mappingIndexes[entity] = .some(index)
        return index.map { bound[$0] }
    }

    /// The time the commit thread spent sending batches.
    final class SendTimer: @unchecked Sendable {
        // Unchecked: only the commit pipeline's thread adds, one batch at a time; `seconds`
        // is read after the pipeline has settled its last batch.
        private(set) var seconds = 0.0
        func add(_ interval: Double) { seconds += interval }
    }

    struct RecordSpot: Equatable {
        var table: String
        var key: RecordKey
    }

    struct Batch {
        var upserts: [ValidItem] = []
        var deletions: [String] = []
        var changes: [IngestState.ItemChange] = []
        var count: Int { upserts.count + deletions.count }
        var isEmpty: Bool { changes.isEmpty && count == 0 }
    }

    /// Settles a batch a killed run left staged, and checks that the index holds what the
    /// state says it does; returns the token of the last batch the index took.
    private func recover(_ report: inout IngestReport) throws -> Int64 {
        let source = mappings.source
        let indexed = try sink.clientState(batchName).flatMap { Int64($0) }
        for pending in try state.pendingTokens(source: source) {
            if pending <= (indexed ?? 0) { try state.applyPending(source: source, token: pending) } else { try state.discardPending(source: source, token: pending) }
        }
        let stored = try state.source(source)?.token ?? 0
        if (indexed ?? 0) != stored {
            // The index was replaced, or another state wrote this batch name: what the
            // index holds is unknown, so every item is written again.
            try state.forgetItems(source: source, token: indexed ?? 0)
            report.resynchronised = true
        }
        return indexed ?? 0
    }

    /// Decides one mapped row: render it and queue an upsert if its item is new or changed,
    /// queue the old item's deletion if the row is gone or its item went or was renamed.
    private func consider(
        row: SourceDatabase.Row?, table: String, key: RecordKey, old: IngestState.ItemEntry?, checkHolder: Bool,
        claimed: inout [String: RecordSpot], batch: inout Batch, report: inout IngestReport, now: Date
    ) throws {
        let spot = RecordSpot(table: table, key: key)
        func drop() {
            guard let old else { return }
            batch.deletions.append(old.identifier)
            batch.changes.append(IngestState.ItemChange(table: table, key: key, entry: nil))
            report.deleted += 1
        }
        guard let row, let mapping = mapping(for: row.entity) else { return drop() }
        let record = RecordReference(name: mappings.source, entity: row.entity, key: key.description)
        // One item's reads: a key path asked by several templates is read once, and every
        // related record read counts against the item's budget.
        var budget = RelatedReadBudget()
        var read: [RecordKeyPath: String?] = [:]
        let outcome: ItemRenderer.Outcome
        do {
            outcome = try ItemRenderer.render(mapping.mapping, record: record, now: now, lifetime: sink.itemLifetime) { path in
                guard let resolved = mapping.paths[path] else { return nil }
                if let known = read[path] { return known }
                let text = try database.text(of: resolved, from: row, budget: &budget)
                read[path] = text
                return text
            }
        } catch is RelatedReadBudget.Spent {
            outcome = .skipped(.tooManyRelated, "its key paths read more than \(RelatedReadBudget.recordsPerItem) related records; "
                + "aggregate (@count, @sum…) or read fewer to-many paths")
        }
        switch outcome {
        case .skipped(let reason, let detail):
            report.skipped[reason, default: 0] += 1
            if report.skipExamples.count < Self.examplesKept {
                report.skipExamples.append("\(row.entity) \(key): \(reason.rawValue)" + (detail.map { " (\($0))" } ?? ""))
            }
            drop()
        case .item(let rendered):
            let item = rendered.owned(by: owner)
            let identifier = item.item.uniqueIdentifier
            if let holder = claimed[identifier], holder != spot {
                noteDuplicate(row: row, key: key, identifier: identifier, report: &report)
                return drop()
            }
            if checkHolder, old?.identifier != identifier, let holder = try state.holder(source: mappings.source, identifier: identifier),
                RecordSpot(table: holder.table, key: holder.key) != spot
            {
                noteDuplicate(row: row, key: key, identifier: identifier, report: &report)
                return drop()
            }
            claimed[identifier] = spot
            let digest = ItemDigest.of(item.item, givenExpiration: sink.itemLifetime.map(now.addingTimeInterval))
            if let old, old.identifier == identifier, old.digest == digest {
                report.unchanged += 1
                return
            }
            if let old, old.identifier != identifier { batch.deletions.append(old.identifier) }
            batch.upserts.append(item)
            batch.changes.append(IngestState.ItemChange(table: table, key: key, entry: IngestState.ItemEntry(identifier: identifier, digest: digest)))
            if old == nil { report.created += 1 } else { report.updated += 1 }
        }
    }

    private func noteDuplicate(row: SourceDatabase.Row, key: RecordKey, identifier: String, report: inout IngestReport) {
        report.skipped[.duplicateIdentifier, default: 0] += 1
        if report.skipExamples.count < Self.examplesKept {
            report.skipExamples.append("\(row.entity) \(key): duplicate-identifier (\(identifier) is another record's)")
        }
    }
}
