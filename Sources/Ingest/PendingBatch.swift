/// A staged batch's item changes as one value, so that staging a batch is one row written
/// rather than one per item: per change its table, key, and identifier and digest (or
/// none, for a deletion), each length-prefixed. Read back only from our own state file.
enum PendingBatch {
    static func encode(_ changes: [IngestState.ItemChange]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(changes.count * 48)
        func number(_ value: UInt64) {
            var value = value
            repeat {
                let low = UInt8(value & 0x7F)
                value >>= 7
                bytes.append(value == 0 ? low : low | 0x80)
            } while value != 0
        }
        func text(_ string: String) {
            number(UInt64(string.utf8.count))
            bytes += string.utf8
        }
        for change in changes {
            text(change.table)
            switch change.key {
            case .integer(let value):
                bytes.append(0)
                number(UInt64(bitPattern: value))
            case .text(let value):
                bytes.append(1)
                text(value)
            }
            if let entry = change.entry {
                bytes.append(1)
                text(entry.identifier)
                number(UInt64(bitPattern: entry.digest))
            } else {
                bytes.append(0)
            }
        }
        return bytes
    }

    /// The changes, or nil when the bytes are not a whole encoding.
    static func decode(_ bytes: [UInt8]) -> [IngestState.ItemChange]? {
        var index = 0
        func number() -> UInt64? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while index < bytes.count, shift < 64 {
                let byte = bytes[index]
                index += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
            return nil
        }
        func text() -> String? {
            guard let count = number().map(Int.init(truncatingIfNeeded:)), count >= 0, count <= bytes.count - index else { return nil }
            defer { index += count }
            return String(decoding: bytes[index..<index + count], as: UTF8.self)
        }
        func flag() -> UInt8? {
            guard index < bytes.count else { return nil }
            defer { index += 1 }
            return bytes[index]
        }
        var changes: [IngestState.ItemChange] = []
        while index < bytes.count {
            guard let table = text(), let kind = flag() else { return nil }
            let key: RecordKey
            if kind == 0 {
                guard let value = number() else { return nil }
                key = .integer(Int64(bitPattern: value))
            } else {
                guard let value = text() else { return nil }
                key = .text(value)
            }
            guard let present = flag() else { return nil }
            var entry: IngestState.ItemEntry?
            if present == 1 {
                guard let identifier = text(), let digest = number() else { return nil }
                entry = IngestState.ItemEntry(identifier: identifier, digest: Int64(bitPattern: digest))
            }
            changes.append(IngestState.ItemChange(table: table, key: key, entry: entry))
        }
        return changes
    }
}
