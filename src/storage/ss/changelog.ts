import { SegmentedLog, type LogFormat } from '../wal/segmented-log.ts';
import { SSChangelogCorruptError } from './errors.ts';
import type { StoreChange } from './types.ts';

/**
 * The SS changelog: one record per change set, in segment files `<first version>.log` of the one
 * write-ahead log (storage/wal), each holding at most `segmentRecords` records.
 *
 *   payload = u64be version ‖ u32be change count ‖ changes
 *   change  = u16be store length ‖ store ‖ u32be key length ‖ key ‖ u8 (1 put | 0 delete) [‖ u32be value length ‖ value]
 *
 * fsync policy: with `sync` (the default) every append is fdatasync'ed before it returns, and the
 * directory is fsync'ed when a segment file is created or deleted, so a change set whose
 * applyChangeSet resolved survives a power loss. `sync: false` (tests, benchmarks) leaves flushing to
 * the OS, which still survives a process crash.
 *
 * A crash mid-append leaves a torn last record: its length runs past the end of the file or its
 * checksum fails with nothing after it. It is dropped (the file truncated before it) on open. A bad
 * record anywhere else is corruption and stops the open with SSChangelogCorruptError.
 */
export interface ChangeRecord {
  version: number;
  changes: StoreChange[];
}

/**
 * Most records per segment file. Truncation removes whole segments, so a log keeping `keep` records
 * uses segments of about keep / 10 records (1 to this many): it then holds keep to 1.1 × keep records.
 */
export const SEGMENT_RECORDS = 1_000;

export function segmentRecordsFor(keep: number): number {
  return keep > 0 ? Math.min(SEGMENT_RECORDS, Math.ceil(keep / 10)) : SEGMENT_RECORDS;
}
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Smallest payload: version and change count. */
const PAYLOAD_HEADER = 12;

const SS_LOG: LogFormat = {
  suffix: '.log',
  // before the shared log, SS framed its records big-endian
  legacyByteOrder: 'big',
  versionOf(payload) {
    if (payload.length < PAYLOAD_HEADER) throw new RangeError('record too short');
    return readVersion(payload, 0);
  },
  torn: 'final-record',
  order: 'increasing',
  corrupt: (path, offset, reason) => new SSChangelogCorruptError(path, offset ?? 0, reason),
};

export class Changelog {
  readonly dir: string;
  /**
   * Records kept once applied (`ss-keep-recent`: the log covers the last KeepRecent blocks); 0 keeps
   * every record. A record not yet applied to the database is never removed, whatever this says.
   */
  readonly keep: number;
  private readonly segmentRecords: number;
  private readonly log: SegmentedLog;
  private closed = false;

  private constructor(dir: string, keep: number, segmentRecords: number, log: SegmentedLog) {
    this.dir = dir;
    this.keep = keep;
    this.segmentRecords = segmentRecords;
    this.log = log;
  }

  /**
   * Opens (creating) the changelog, dropping a torn final record. `segmentRecords` defaults to
   * segmentRecordsFor(keep); segments written with another size are read as they are.
   */
  static open(dir: string, options: { keep: number; sync?: boolean; segmentRecords?: number }): Changelog {
    const keep = Math.max(0, options.keep);
    const segmentRecords = Math.max(1, options.segmentRecords ?? segmentRecordsFor(keep));
    const log = SegmentedLog.open(dir, SS_LOG, { sync: options.sync !== false });
    return new Changelog(dir, keep, segmentRecords, log);
  }

  get lastVersion(): number {
    return this.log.lastVersion ?? 0;
  }

  get recordCount(): number {
    return this.log.recordCount;
  }

  /** Records with version > `after`, oldest first (decoded from disk on demand). */
  *recordsAfter(after: number): Generator<ChangeRecord> {
    for (const { payload } of this.log.records(after + 1)) yield decodePayload(payload);
  }

  /**
   * Appends one version's changes; resolves once they are written (and synced, with `sync`). The
   * write and its fdatasync run on the libuv pool: a slow disk must not stall the event loop (every
   * RPC) once per block. Callers append one version at a time.
   */
  async append(version: number, changes: readonly StoreChange[]): Promise<void> {
    if (this.closed) throw new Error(`changelog ${this.dir} is closed`);
    if (version <= this.lastVersion) {
      throw new RangeError(`changelog version ${version} is not above the last record ${this.lastVersion}`);
    }
    const segments = this.log.segments;
    const current = segments[segments.length - 1];
    if (!current || current.count >= this.segmentRecords) this.log.startSegment(version);
    await this.log.append(version, encodePayload(version, changes));
  }

  /**
   * Deletes whole segments whose records are all applied (at or below `appliedVersion`: recovery
   * replays only records above the database's version), keeping at least `keep` records.
   */
  truncate(appliedVersion: number): void {
    if (this.keep === 0) return;
    let total = this.log.recordCount;
    while (this.log.segments.length > 1) {
      const oldest = this.log.segments[0];
      if (oldest.lastVersion > appliedVersion || total - oldest.count < this.keep) break;
      this.log.dropOldestSegment();
      total -= oldest.count;
    }
  }

  /** Drops every record: an imported snapshot supersedes whatever the changelog held. */
  reset(): void {
    this.log.reset();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.log.close();
  }
}

function readVersion(bytes: Uint8Array, offset: number): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset + offset, 8);
  return view.getUint32(0) * 0x1_0000_0000 + view.getUint32(4);
}

function encodePayload(version: number, changes: readonly StoreChange[]): Buffer {
  const stores = changes.map((c) => encoder.encode(c.store));
  let size = 12;
  for (let i = 0; i < changes.length; i++) {
    const c = changes[i];
    size += 2 + stores[i].length + 4 + c.key.length + 1 + (c.value ? 4 + c.value.length : 0);
  }
  const out = Buffer.allocUnsafe(size);
  out.writeUInt32BE(Math.floor(version / 0x1_0000_0000), 0);
  out.writeUInt32BE(version >>> 0, 4);
  out.writeUInt32BE(changes.length, 8);
  let o = 12;
  for (let i = 0; i < changes.length; i++) {
    const c = changes[i];
    o = out.writeUInt16BE(stores[i].length, o);
    out.set(stores[i], o);
    o += stores[i].length;
    o = out.writeUInt32BE(c.key.length, o);
    out.set(c.key, o);
    o += c.key.length;
    if (c.value) {
      o = out.writeUInt8(1, o);
      o = out.writeUInt32BE(c.value.length, o);
      out.set(c.value, o);
      o += c.value.length;
    } else o = out.writeUInt8(0, o);
  }
  return out;
}

function decodePayload(payload: Uint8Array): ChangeRecord {
  const bytes = Buffer.from(payload.buffer, payload.byteOffset, payload.length);
  const version = readVersion(bytes, 0);
  const count = bytes.readUInt32BE(8);
  const changes: StoreChange[] = new Array(count);
  let o = 12;
  for (let i = 0; i < count; i++) {
    const storeLen = bytes.readUInt16BE(o);
    const store = decoder.decode(bytes.subarray(o + 2, o + 2 + storeLen));
    o += 2 + storeLen;
    const keyLen = bytes.readUInt32BE(o);
    const key = new Uint8Array(bytes.subarray(o + 4, o + 4 + keyLen));
    o += 4 + keyLen;
    let value: Uint8Array | null = null;
    if (bytes[o++] === 1) {
      const valueLen = bytes.readUInt32BE(o);
      value = new Uint8Array(bytes.subarray(o + 4, o + 4 + valueLen));
      o += 4 + valueLen;
    }
    changes[i] = { store, key, value };
  }
  return { version, changes };
}
