/**
 * The node's one write-ahead log: versioned, checksummed records in segment files named by the
 * version they start at, so that dropping old records is deleting whole files. The State Store's
 * changelogs and State Commit's logs (memiavl, flatkv) are this log with their own payload codec and
 * their own rule for when a segment starts (docs/adr/0010-one-write-ahead-log.md).
 *
 *   segment = header ‖ record*
 *   header  = "CWAL" ‖ u8 format (1) ‖ 3 zero bytes
 *   record  = u32le payload length ‖ u32le CRC-32(payload) ‖ payload
 *
 * A segment without the header was written before the log had one, by one of the two logs this
 * replaced: its records are framed the same way, in the byte order its owner names
 * (`legacyByteOrder`). Such segments are read, never appended to: the next append starts a segment
 * in the current format. The payload is the owner's; `versionOf` reads the version out of it.
 *
 * A crash mid-append leaves a torn record at the end of the last segment; open cuts it off (that
 * record was never acknowledged). What counts as torn is the owner's choice (`torn`); damage anywhere
 * else is corruption, reported with the owner's error.
 */
import {
  closeSync,
  fdatasync,
  fdatasyncSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  write,
  writeSync,
} from 'node:fs';
import { outOfDiskOr } from '../../util/out-of-disk.ts';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { crc32 } from 'node:zlib';

export const SEGMENT_HEADER = Uint8Array.of(0x43, 0x57, 0x41, 0x4c, 1, 0, 0, 0);
const MAGIC_LENGTH = 4;
const FORMAT_BYTE = 4;
const FORMAT = 1;
const RECORD_HEADER = 8;

export interface LogFormat {
  /** Segment file name suffix, e.g. `.log`: names are the 20-digit first version plus this. */
  suffix: string;
  /** Byte order of the record framing in segments written before the header existed. */
  legacyByteOrder: 'big' | 'little';
  /** The record's version, read from its payload; throws when the payload holds no record. */
  versionOf(payload: Uint8Array): number;
  /**
   * Which damage in the last segment is a torn append, cut off on open:
   * - `final-record`: a record that runs past the end of the file, or a bad record nothing follows;
   * - `tail`: any bad record, with everything after it.
   */
  torn: 'final-record' | 'tail';
  /**
   * `increasing`: versions only grow, across segments. `consecutive`: inside a segment each version
   * is the one before plus one, starting at the segment's name (a gap between segments is legal).
   */
  order: 'increasing' | 'consecutive';
  /** The error for damage that is not a torn append (`offset`: byte in the file, when known). */
  corrupt(path: string, offset: number | undefined, reason: string): Error;
}

export interface LogRecord {
  version: number;
  payload: Uint8Array;
}

export interface SegmentInfo {
  readonly file: string;
  readonly firstVersion: number;
  /** Version of its last record; firstVersion - 1 while it holds none. */
  readonly lastVersion: number;
  readonly count: number;
}

interface Segment extends SegmentInfo {
  file: string;
  firstVersion: number;
  lastVersion: number;
  count: number;
  /** false: written before the header existed (read only). */
  current: boolean;
  /** Byte order of its record framing. */
  littleEndian: boolean;
  versions: number[];
  /** File offset of each record's framing, by index in `versions`. */
  offsets: number[];
  size: number;
}

// fs.write's promisified form resolves { bytesWritten, buffer }, not the count
const writeAsync = promisify(write) as unknown as (
  fd: number,
  buf: Uint8Array,
  offset: number,
  length: number,
) => Promise<{ bytesWritten: number }>;
const datasyncAsync = promisify(fdatasync);

export class SegmentedLog {
  readonly dir: string;
  private readonly format: LogFormat;
  private readonly sync: boolean;
  private segs: Segment[] = [];
  /** Open for appends: always the last segment's file. */
  private fd: number | undefined;

  private constructor(dir: string, format: LogFormat, sync: boolean) {
    this.dir = dir;
    this.format = format;
    this.sync = sync;
  }

  /**
   * Opens (creating) the log in `dir` and cuts a torn tail off its last segment. `sync`: appends are
   * fdatasync'ed and segment files created or deleted are made durable in the directory; without it
   * flushing is the OS's (a process crash is still survived, a power loss may not be).
   */
  static open(dir: string, format: LogFormat, options: { sync: boolean }): SegmentedLog {
    mkdirSync(dir, { recursive: true });
    const log = new SegmentedLog(dir, format, options.sync);
    const pattern = new RegExp(`^\\d{20}${format.suffix.replace('.', '\\.')}$`);
    const files = readdirSync(dir)
      .filter((f) => pattern.test(f))
      .sort();
    files.forEach((file, i) => log.segs.push(log.scan(file, i === files.length - 1)));
    return log;
  }

  get segments(): readonly SegmentInfo[] {
    return this.segs;
  }

  get recordCount(): number {
    let n = 0;
    for (const s of this.segs) n += s.count;
    return n;
  }

  /** Newest version in the log, or undefined when it holds no record. */
  get lastVersion(): number | undefined {
    for (let i = this.segs.length - 1; i >= 0; i--)
      if (this.segs[i].count > 0) return this.segs[i].lastVersion;
    return undefined;
  }

  /** Oldest version in the log, or undefined when it holds no record. */
  get firstVersion(): number | undefined {
    for (const s of this.segs) if (s.count > 0) return s.versions[0];
    return undefined;
  }

  /** Records with from <= version <= to, oldest first, read from disk (one file read per segment). */
  *records(from = -Infinity, to = Infinity): Generator<LogRecord> {
    for (const seg of this.segs) {
      if (seg.count === 0 || seg.lastVersion < from || seg.versions[0] > to) continue;
      const bytes = readFileSync(join(this.dir, seg.file));
      for (let i = 0; i < seg.count; i++) {
        const version = seg.versions[i];
        if (version < from) continue;
        if (version > to) return;
        const at = seg.offsets[i];
        const length = readU32(bytes, at, seg.littleEndian);
        yield { version, payload: bytes.subarray(at + RECORD_HEADER, at + RECORD_HEADER + length) };
      }
    }
  }

  /** Appends one record and returns once it is written (and, with `sync`, on disk). */
  appendSync(version: number, payload: Uint8Array): void {
    const { seg, record } = this.prepareOrFail(version, payload);
    try {
      writeFully(this.fd!, record);
      if (this.sync) fdatasyncSync(this.fd!);
    } catch (err) {
      throw this.failedAppend(seg, err);
    }
    this.appended(seg, version, record.length);
  }

  /**
   * appendSync with the write and fdatasync on the libuv pool, so that the event loop keeps running;
   * the caller serialises appends. Without `sync` the record only has to reach the page cache, which
   * a write does in a few µs: handing it to the pool cost the event loop more than that, and the
   * round trip through the pool's thread delayed every block's commit.
   */
  async append(version: number, payload: Uint8Array): Promise<void> {
    if (!this.sync) return this.appendSync(version, payload);
    const { seg, record } = this.prepareOrFail(version, payload);
    const fd = this.fd!;
    try {
      for (let written = 0; written < record.length;)
        written += (await writeAsync(fd, record, written, record.length - written)).bytesWritten;
      if (this.sync) await datasyncAsync(fd);
    } catch (err) {
      throw this.failedAppend(seg, err);
    }
    this.appended(seg, version, record.length);
  }

  private prepareOrFail(version: number, payload: Uint8Array): { seg: Segment; record: Uint8Array } {
    try {
      return this.prepare(version, payload);
    } catch (err) {
      this.closeFd();
      throw outOfDiskOr(err, this.dir);
    }
  }

  /**
   * A failed append (the disk full, most often) may have left part of its record in the file: cut
   * back to the last whole record, so that a later append never follows torn bytes (best effort:
   * open cuts a torn tail anyway). Returns the error to throw, an OutOfDiskError for a full disk.
   */
  private failedAppend(seg: Segment, err: unknown): unknown {
    this.closeFd();
    try {
      truncateFile(join(this.dir, seg.file), seg.size, false);
    } catch {
      // the torn tail stays until the next open cuts it
    }
    return outOfDiskOr(err, this.dir);
  }

  /**
   * Starts a new segment for records from `firstVersion` on; an empty last segment is replaced
   * (its name would be wrong).
   */
  startSegment(firstVersion: number): void {
    this.closeFd();
    const last = this.segs[this.segs.length - 1];
    if (last && last.count === 0) this.removeSegment(this.segs.length - 1);
    const file = `${String(firstVersion).padStart(20, '0')}${this.format.suffix}`;
    const fd = openSync(join(this.dir, file), 'w');
    writeFully(fd, SEGMENT_HEADER);
    this.fd = fd;
    if (this.sync) syncDir(this.dir);
    this.segs.push({
      file,
      firstVersion,
      lastVersion: firstVersion - 1,
      count: 0,
      current: true,
      littleEndian: true,
      versions: [],
      offsets: [],
      size: SEGMENT_HEADER.length,
    });
  }

  /** Deletes the oldest segment file and its records. */
  dropOldestSegment(): void {
    if (this.segs.length === 0) return;
    if (this.segs.length === 1) this.closeFd();
    this.removeSegment(0);
    if (this.sync) syncDir(this.dir);
  }

  /** Drops every record above `version` (rollback); segments starting above it are deleted. */
  truncateAfter(version: number): void {
    this.closeFd();
    let removed = false;
    for (let i = this.segs.length - 1; i >= 0; i--) {
      const seg = this.segs[i];
      if (seg.firstVersion > version) {
        this.removeSegment(i);
        removed = true;
        continue;
      }
      if (seg.lastVersion > version) {
        let keep = 0;
        while (keep < seg.count && seg.versions[keep] <= version) keep++;
        const end = keep < seg.count ? seg.offsets[keep] : seg.size;
        truncateFile(join(this.dir, seg.file), end, this.sync);
        seg.versions.length = keep;
        seg.offsets.length = keep;
        seg.count = keep;
        seg.size = end;
        seg.lastVersion = keep > 0 ? seg.versions[keep - 1] : seg.firstVersion - 1;
      }
    }
    // a file cut shorter is durable by its own fsync; only removed names need the directory's
    if (this.sync && removed) syncDir(this.dir);
  }

  /** Deletes every segment. */
  reset(): void {
    this.closeFd();
    const removed = this.segs.length > 0;
    while (this.segs.length > 0) this.removeSegment(this.segs.length - 1);
    if (this.sync && removed) syncDir(this.dir);
  }

  /** Closes the append file; the log stays usable (the next append reopens it). */
  close(): void {
    this.closeFd();
  }

  /** The segment the record goes to (opened, or started when there is none to append to) and its bytes. */
  private prepare(version: number, payload: Uint8Array): { seg: Segment; record: Uint8Array } {
    let seg = this.segs[this.segs.length - 1];
    if (!seg || !seg.current || (seg.count === 0 && seg.firstVersion !== version)) {
      this.startSegment(version);
      seg = this.segs[this.segs.length - 1];
    } else if (this.fd === undefined) {
      const path = join(this.dir, seg.file);
      if (seg.size < SEGMENT_HEADER.length) {
        // created but its header never made it to disk (or it predates the header and is empty)
        this.fd = openSync(path, 'w');
        writeFully(this.fd, SEGMENT_HEADER);
        seg.size = SEGMENT_HEADER.length;
      } else this.fd = openSync(path, 'a');
    }
    const record = new Uint8Array(RECORD_HEADER + payload.length);
    const view = new DataView(record.buffer);
    view.setUint32(0, payload.length, true);
    view.setUint32(4, crc32(payload), true);
    record.set(payload, RECORD_HEADER);
    return { seg, record };
  }

  private appended(seg: Segment, version: number, bytes: number): void {
    seg.versions.push(version);
    seg.offsets.push(seg.size);
    seg.size += bytes;
    seg.count++;
    seg.lastVersion = version;
  }

  private removeSegment(index: number): void {
    rmSync(join(this.dir, this.segs[index].file), { force: true });
    this.segs.splice(index, 1);
  }

  private closeFd(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  /** Indexes a segment's records; cuts a torn tail off the last one. */
  private scan(file: string, isLast: boolean): Segment {
    const path = join(this.dir, file);
    const bytes = readFileSync(path);
    const firstVersion = Number(file.slice(0, 20));
    const header = headerKind(bytes);
    if (header === 'unknown-format') {
      throw this.format.corrupt(
        path,
        FORMAT_BYTE,
        `segment format ${bytes[FORMAT_BYTE]} is not one this build reads (written by a newer chaind?)`,
      );
    }
    const current = header !== 'none';
    const seg: Segment = {
      file,
      firstVersion,
      lastVersion: firstVersion - 1,
      count: 0,
      current,
      littleEndian: current || this.format.legacyByteOrder === 'little',
      versions: [],
      offsets: [],
      size: 0,
    };
    if (header === 'torn') {
      // a segment whose creation was cut short holds no record; the next append rewrites it
      seg.size = bytes.length;
      return seg;
    }
    const previousLast = this.lastVersion;
    let offset = current ? SEGMENT_HEADER.length : 0;
    while (offset < bytes.length) {
      const checked = this.checkRecord(bytes, offset, seg.littleEndian);
      if ('reason' in checked) {
        const torn =
          isLast && (this.format.torn === 'tail' || checked.pastEnd || checked.end === bytes.length);
        if (!torn) throw this.format.corrupt(path, offset, checked.reason);
        truncateFile(path, offset, this.sync);
        break;
      }
      const { version, end } = checked;
      if (this.format.order === 'consecutive') {
        if (version !== seg.lastVersion + 1)
          throw this.format.corrupt(path, offset, `version ${version} follows ${seg.lastVersion}`);
      } else if (version <= (seg.count > 0 ? seg.lastVersion : (previousLast ?? -Infinity))) {
        throw this.format.corrupt(path, offset, `version ${version} out of order`);
      }
      seg.versions.push(version);
      seg.offsets.push(offset);
      seg.count++;
      seg.lastVersion = version;
      offset = end;
    }
    seg.size = offset;
    return seg;
  }

  private checkRecord(
    bytes: Uint8Array,
    offset: number,
    littleEndian: boolean,
  ): { version: number; end: number } | { reason: string; pastEnd: boolean; end: number } {
    if (offset + RECORD_HEADER > bytes.length)
      return { reason: 'truncated record header', pastEnd: true, end: bytes.length };
    const length = readU32(bytes, offset, littleEndian);
    const end = offset + RECORD_HEADER + length;
    if (end > bytes.length) return { reason: 'record runs past the end of the file', pastEnd: true, end };
    const payload = bytes.subarray(offset + RECORD_HEADER, end);
    if (crc32(payload) !== readU32(bytes, offset + 4, littleEndian))
      return { reason: 'checksum mismatch', pastEnd: false, end };
    // the checksum vouches for the payload; only its version is needed to index it (decoding every
    // record of a large log here would dominate open time)
    let version: number;
    try {
      version = this.format.versionOf(payload);
    } catch (err) {
      return { reason: `undecodable record (${(err as Error).message})`, pastEnd: false, end };
    }
    return { version, end };
  }
}

/** What a segment file starts with: the current header, a torn one, none (legacy), or an unknown format. */
function headerKind(bytes: Uint8Array): 'current' | 'torn' | 'none' | 'unknown-format' {
  const n = Math.min(bytes.length, SEGMENT_HEADER.length);
  if (n === 0) return 'torn';
  for (let i = 0; i < Math.min(n, MAGIC_LENGTH); i++) if (bytes[i] !== SEGMENT_HEADER[i]) return 'none';
  if (bytes.length < SEGMENT_HEADER.length) return 'torn';
  return bytes[FORMAT_BYTE] === FORMAT ? 'current' : 'unknown-format';
}

function readU32(bytes: Uint8Array, offset: number, littleEndian: boolean): number {
  return new DataView(bytes.buffer, bytes.byteOffset + offset, 4).getUint32(0, littleEndian);
}

function writeFully(fd: number, buf: Uint8Array): void {
  for (let written = 0; written < buf.length;) written += writeSync(fd, buf, written, buf.length - written);
}

function truncateFile(path: string, length: number, sync: boolean): void {
  const fd = openSync(path, 'r+');
  try {
    ftruncateSync(fd, length);
    if (sync) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
