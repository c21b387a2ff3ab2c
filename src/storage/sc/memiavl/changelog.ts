/**
 * The memiavl write-ahead changelog: one checksummed record per block, in segment files named by
 * their first version (a new segment starts after each snapshot, so truncating behind a snapshot is
 * deleting whole files). Record: u32le length ‖ u32le crc32(payload) ‖ payload (changelog-codec).
 *
 * A crash can leave a torn record at the very end of the last segment; open() cuts it off (that block
 * was never acknowledged as durable). A bad record anywhere else is corruption and fails loudly.
 */
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
} from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { promisify } from 'node:util';
import { write as fsWrite, fdatasync } from 'node:fs';
import { ChainError } from '../../../util/errors.ts';
import { decodeEntry, encodeEntry } from '../changelog-codec.ts';
import { readUvarint } from '../../../codec/varint.ts';
import type { ChangelogEntry } from '../types.ts';

export class ChangelogCorruptError extends ChainError {
  constructor(path: string, why: string) {
    super('SC_CHANGELOG_CORRUPT', `state commit changelog ${path} is corrupt: ${why}`);
  }
}

interface Segment {
  first: number;
  path: string;
  /** version -> [start offset, end offset] of its record */
  records: Map<number, [number, number]>;
  last: number;
  size: number;
}

const writeAsync = promisify(fsWrite) as unknown as (fd: number, buf: Uint8Array) => Promise<unknown>;
const datasyncAsync = promisify(fdatasync);

const segName = (first: number): string => `${String(first).padStart(20, '0')}.wal`;

export class Changelog {
  readonly dir: string;
  private segments: Segment[] = [];
  private fd: number | undefined;

  private constructor(dir: string) {
    this.dir = dir;
  }

  static open(dir: string): Changelog {
    mkdirSync(dir, { recursive: true });
    const log = new Changelog(dir);
    const names = readdirSync(dir)
      .filter((n) => n.endsWith('.wal'))
      .sort();
    names.forEach((name, i) =>
      log.segments.push(log.scan(join(dir, name), Number(name.slice(0, -4)), i === names.length - 1)),
    );
    // drop empty trailing segments except one (an empty segment is a just-rolled file)
    return log;
  }

  /** Parses a segment; truncates a torn tail only in the last segment. */
  private scan(path: string, first: number, isLast: boolean): Segment {
    const buf = readFileSync(path);
    const records = new Map<number, [number, number]>();
    let off = 0;
    let last = first - 1;
    while (off < buf.length) {
      const bad = (why: string): Segment => {
        if (!isLast) throw new ChangelogCorruptError(path, `${why} at offset ${off}`);
        truncateSync(path, off);
        return { first, path, records, last, size: off };
      };
      if (off + 8 > buf.length) return bad('torn record header');
      const len = buf.readUInt32LE(off);
      const sum = buf.readUInt32LE(off + 4);
      if (off + 8 + len > buf.length) return bad('torn record');
      const payload = buf.subarray(off + 8, off + 8 + len);
      if (crc32(payload) !== sum) return bad('checksum mismatch');
      // the checksum vouches for the payload; only its leading version is needed to index it
      // (decoding every pair of a large log here would dominate open time)
      let version: number;
      try {
        version = readUvarint(payload, 0)[0];
      } catch (err) {
        return bad(`undecodable record (${(err as Error).message})`);
      }
      if (version !== last + 1) throw new ChangelogCorruptError(path, `version ${version} follows ${last}`);
      records.set(version, [off, off + 8 + len]);
      last = version;
      off += 8 + len;
    }
    return { first, path, records, last, size: buf.length };
  }

  /** Newest version in the log, or undefined when empty. */
  get lastVersion(): number | undefined {
    for (let i = this.segments.length - 1; i >= 0; i--)
      if (this.segments[i].records.size > 0) return this.segments[i].last;
    return undefined;
  }

  get firstVersion(): number | undefined {
    for (const s of this.segments) if (s.records.size > 0) return s.first;
    return undefined;
  }

  /**
   * Appends one entry durably (write + fdatasync on the libuv pool, so an async-commit writer does
   * not block the event loop). Versions must be consecutive; callers serialise appends.
   */
  async append(entry: ChangelogEntry): Promise<void> {
    const payload = encodeEntry(entry);
    const last = this.lastVersion;
    if (last !== undefined && entry.version <= last) {
      throw new ChangelogCorruptError(this.dir, `append of version ${entry.version} after ${last}`);
    }
    // A gap is legal after a snapshot newer than the log (an async-commit crash lost the tail, or an
    // import): the entries below it are never replayed on top of that snapshot. It opens a segment.
    let seg = this.segments[this.segments.length - 1];
    if (!seg || (seg.records.size > 0 && seg.last !== entry.version - 1))
      seg = this.newSegment(entry.version);
    if (seg.records.size === 0 && seg.first !== entry.version) {
      // an empty segment named for another version: rename by recreating
      this.closeFd();
      rmSync(seg.path, { force: true });
      this.segments.pop();
      seg = this.newSegment(entry.version);
    }
    if (this.fd === undefined) this.fd = openSync(seg.path, 'a');
    const rec = Buffer.allocUnsafe(8 + payload.length);
    rec.writeUInt32LE(payload.length, 0);
    rec.writeUInt32LE(crc32(payload), 4);
    rec.set(payload, 8);
    await writeAsync(this.fd, rec);
    await datasyncAsync(this.fd);
    seg.records.set(entry.version, [seg.size, seg.size + rec.length]);
    seg.size += rec.length;
    seg.last = entry.version;
  }

  /** Starts a new segment for entries from `first` on (called after a snapshot). */
  roll(first: number): void {
    const seg = this.segments[this.segments.length - 1];
    if (seg && seg.records.size === 0) return;
    this.newSegment(first);
  }

  private newSegment(first: number): Segment {
    this.closeFd();
    const path = join(this.dir, segName(first));
    closeSync(openSync(path, 'a'));
    const seg: Segment = { first, path, records: new Map(), last: first - 1, size: 0 };
    this.segments.push(seg);
    return seg;
  }

  private closeFd(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  /** Entries with from <= version <= to, in order. Throws if any is missing. */
  *read(from: number, to: number): Generator<ChangelogEntry> {
    let cached: { path: string; buf: Buffer } | undefined;
    for (let v = from; v <= to; v++) {
      const seg = this.segments.find((s) => s.records.has(v));
      if (!seg) throw new ChangelogCorruptError(this.dir, `version ${v} is missing`);
      if (!cached || cached.path !== seg.path) cached = { path: seg.path, buf: readFileSync(seg.path) };
      const [start, end] = seg.records.get(v)!;
      yield decodeEntry(new Uint8Array(cached.buf.subarray(start + 8, end)));
    }
  }

  /** Deletes whole segments whose entries are all below `version` (they are covered by a snapshot). */
  truncateBefore(version: number): void {
    while (this.segments.length > 1 && this.segments[1].first <= version) {
      const seg = this.segments.shift()!;
      rmSync(seg.path, { force: true });
    }
  }

  /** Drops every entry above `version` (rollback). */
  truncateAfter(version: number): void {
    this.closeFd();
    for (let i = this.segments.length - 1; i >= 0; i--) {
      const seg = this.segments[i];
      if (seg.first > version) {
        rmSync(seg.path, { force: true });
        this.segments.splice(i, 1);
        continue;
      }
      if (seg.last > version) {
        const end = seg.records.get(version)?.[1] ?? 0;
        truncateSync(seg.path, end);
        for (const v of [...seg.records.keys()]) if (v > version) seg.records.delete(v);
        seg.size = end;
        seg.last = version;
      }
    }
    const fd = openSync(this.dir, 'r');
    fsyncSync(fd);
    closeSync(fd);
  }

  close(): void {
    this.closeFd();
  }
}
