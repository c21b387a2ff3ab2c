import {
  closeSync,
  fdatasyncSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { SSChangelogCorruptError } from './errors.ts';
import type { StoreChange } from './types.ts';

/**
 * The SS changelog: one record per change set, in segment files `<first version>.log`.
 *
 *   record  = u32be payload length ‖ u32be CRC-32(payload) ‖ payload
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

interface Segment {
  file: string;
  firstVersion: number;
  lastVersion: number;
  count: number;
}

interface RecordRef {
  version: number;
  segment: Segment;
  offset: number;
  length: number;
}

const HEADER = 8;
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

export class Changelog {
  readonly dir: string;
  /**
   * Records kept once applied (`ss-keep-recent`: the log covers the last KeepRecent blocks); 0 keeps
   * every record. A record not yet applied to the database is never removed, whatever this says.
   */
  readonly keep: number;
  private readonly segmentRecords: number;
  private readonly sync: boolean;
  private segments: Segment[] = [];
  private refs: RecordRef[] = [];
  private fd: number | undefined;
  private size = 0;
  private closed = false;

  private constructor(dir: string, keep: number, segmentRecords: number, sync: boolean) {
    this.dir = dir;
    this.keep = keep;
    this.segmentRecords = segmentRecords;
    this.sync = sync;
  }

  /**
   * Opens (creating) the changelog, dropping a torn final record. `segmentRecords` defaults to
   * segmentRecordsFor(keep); segments written with another size are read as they are.
   */
  static open(dir: string, options: { keep: number; sync?: boolean; segmentRecords?: number }): Changelog {
    mkdirSync(dir, { recursive: true });
    const keep = Math.max(0, options.keep);
    const segmentRecords = Math.max(1, options.segmentRecords ?? segmentRecordsFor(keep));
    const log = new Changelog(dir, keep, segmentRecords, options.sync !== false);
    log.scan();
    return log;
  }

  get lastVersion(): number {
    return this.refs.length ? this.refs[this.refs.length - 1].version : 0;
  }

  get recordCount(): number {
    return this.refs.length;
  }

  /** Records with version > `after`, oldest first (decoded from disk on demand). */
  *recordsAfter(after: number): Generator<ChangeRecord> {
    let i = this.refs.length;
    while (i > 0 && this.refs[i - 1].version > after) i--;
    let cached: { file: string; bytes: Buffer } | undefined;
    for (; i < this.refs.length; i++) {
      const ref = this.refs[i];
      if (cached?.file !== ref.segment.file)
        cached = { file: ref.segment.file, bytes: readFileSync(join(this.dir, ref.segment.file)) };
      yield decodePayload(cached.bytes.subarray(ref.offset + HEADER, ref.offset + HEADER + ref.length));
    }
  }

  append(version: number, changes: readonly StoreChange[]): void {
    if (this.closed) throw new Error(`changelog ${this.dir} is closed`);
    if (version <= this.lastVersion) {
      throw new RangeError(`changelog version ${version} is not above the last record ${this.lastVersion}`);
    }
    let segment = this.segments[this.segments.length - 1];
    if (!segment || segment.count >= this.segmentRecords || this.fd === undefined) {
      if (!segment || segment.count >= this.segmentRecords) segment = this.newSegment(version);
      else this.openForAppend(segment);
    }
    const payload = encodePayload(version, changes);
    const record = Buffer.allocUnsafe(HEADER + payload.length);
    record.writeUInt32BE(payload.length, 0);
    record.writeUInt32BE(crc32(payload), 4);
    record.set(payload, HEADER);
    writeAll(this.fd!, record);
    if (this.sync) fdatasyncSync(this.fd!);
    this.refs.push({ version, segment, offset: this.size, length: payload.length });
    this.size += record.length;
    segment.count++;
    segment.lastVersion = version;
  }

  /**
   * Deletes whole segments whose records are all applied (at or below `appliedVersion`: recovery
   * replays only records above the database's version), keeping at least `keep` records.
   */
  truncate(appliedVersion: number): void {
    if (this.keep === 0) return;
    let total = this.refs.length;
    let removed = false;
    while (this.segments.length > 1) {
      const oldest = this.segments[0];
      if (oldest.lastVersion > appliedVersion || total - oldest.count < this.keep) break;
      rmSync(join(this.dir, oldest.file), { force: true });
      this.segments.shift();
      this.refs.splice(0, oldest.count);
      total -= oldest.count;
      removed = true;
    }
    if (removed && this.sync) syncDir(this.dir);
  }

  /** Drops every record: an imported snapshot supersedes whatever the changelog held. */
  reset(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    for (const segment of this.segments) rmSync(join(this.dir, segment.file), { force: true });
    this.segments = [];
    this.refs = [];
    this.size = 0;
    if (this.sync) syncDir(this.dir);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private newSegment(firstVersion: number): Segment {
    if (this.fd !== undefined) closeSync(this.fd);
    const segment: Segment = {
      file: `${String(firstVersion).padStart(20, '0')}.log`,
      firstVersion,
      lastVersion: 0,
      count: 0,
    };
    this.fd = openSync(join(this.dir, segment.file), 'a');
    this.size = 0;
    if (this.sync) syncDir(this.dir);
    this.segments.push(segment);
    return segment;
  }

  private openForAppend(segment: Segment): void {
    this.fd = openSync(join(this.dir, segment.file), 'a');
  }

  private scan(): void {
    const files = readdirSync(this.dir)
      .filter((f) => /^\d{20}\.log$/.test(f))
      .sort();
    for (let s = 0; s < files.length; s++) {
      const file = files[s];
      const path = join(this.dir, file);
      const bytes = readFileSync(path);
      const segment: Segment = { file, firstVersion: Number(file.slice(0, 20)), lastVersion: 0, count: 0 };
      const isLastFile = s === files.length - 1;
      let offset = 0;
      while (offset < bytes.length) {
        const problem = checkRecord(bytes, offset);
        if (problem) {
          const torn = isLastFile && (problem.pastEnd || problem.end === bytes.length);
          if (!torn) throw new SSChangelogCorruptError(path, offset, problem.reason);
          const fd = openSync(path, 'r+');
          ftruncateSync(fd, offset); // drop the torn record; everything before it is intact
          if (this.sync) fsyncSync(fd);
          closeSync(fd);
          break;
        }
        const length = bytes.readUInt32BE(offset);
        const version = readVersion(bytes, offset + HEADER);
        if (version <= this.lastVersion)
          throw new SSChangelogCorruptError(path, offset, `version ${version} out of order`);
        this.refs.push({ version, segment, offset, length });
        segment.count++;
        segment.lastVersion = version;
        offset += HEADER + length;
      }
      if (segment.count > 0 || isLastFile) this.segments.push(segment);
      if (isLastFile) this.size = offset;
      if (segment.count === 0 && !isLastFile) rmSync(path, { force: true });
    }
  }
}

function checkRecord(
  bytes: Buffer,
  offset: number,
): { reason: string; pastEnd: boolean; end: number } | undefined {
  if (offset + HEADER > bytes.length) return { reason: 'truncated header', pastEnd: true, end: bytes.length };
  const length = bytes.readUInt32BE(offset);
  const end = offset + HEADER + length;
  if (end > bytes.length) return { reason: 'record runs past the end of the file', pastEnd: true, end };
  if (length < 12) return { reason: 'record too short', pastEnd: false, end };
  if (crc32(bytes.subarray(offset + HEADER, end)) !== bytes.readUInt32BE(offset + 4)) {
    return { reason: 'checksum mismatch', pastEnd: false, end };
  }
  return undefined;
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

function decodePayload(bytes: Buffer): ChangeRecord {
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

function writeAll(fd: number, buf: Uint8Array): void {
  let written = 0;
  while (written < buf.length) written += writeSync(fd, buf, written, buf.length - written);
}

function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
