/**
 * State Commit's write-ahead log (memiavl's changelog and flatkv's log): one record per block, an
 * encoded ChangelogEntry (changelog-codec), in segment files `<first version>.wal` of the one
 * write-ahead log (storage/wal). A new segment starts when its owner says (memiavl: after each
 * snapshot; flatkv: after each flush), so that dropping what a snapshot or flush covers is deleting
 * whole files. Appends are fdatasync'ed before they resolve.
 *
 * A crash can leave a torn record at the very end of the last segment; open() cuts it off (that block
 * was never acknowledged as durable). A bad record anywhere else is corruption and fails loudly.
 */
import { ChainError } from '../../util/errors.ts';
import { readUvarint } from '../../codec/varint.ts';
import { SegmentedLog, type LogFormat } from '../wal/segmented-log.ts';
import { decodeEntry, encodeEntry } from './changelog-codec.ts';
import type { ChangelogEntry } from './types.ts';

export class ChangelogCorruptError extends ChainError {
  constructor(path: string, why: string) {
    super('SC_CHANGELOG_CORRUPT', `state commit changelog ${path} is corrupt: ${why}`);
  }
}

const SC_LOG: LogFormat = {
  suffix: '.wal',
  // before the shared log, memiavl and flatkv framed their records little-endian
  legacyByteOrder: 'little',
  versionOf: (payload) => readUvarint(payload, 0)[0],
  torn: 'tail',
  order: 'consecutive',
  corrupt: (path, offset, reason) =>
    new ChangelogCorruptError(path, offset === undefined ? reason : `${reason} at offset ${offset}`),
};

export class Changelog {
  readonly dir: string;
  private readonly log: SegmentedLog;

  private constructor(dir: string, log: SegmentedLog) {
    this.dir = dir;
    this.log = log;
  }

  /** `sync` false: appends are not fdatasync'ed (a throwaway home). */
  static open(dir: string, sync = true): Changelog {
    return new Changelog(dir, SegmentedLog.open(dir, SC_LOG, { sync }));
  }

  /** Newest version in the log, or undefined when empty. */
  get lastVersion(): number | undefined {
    return this.log.lastVersion;
  }

  get firstVersion(): number | undefined {
    return this.log.firstVersion;
  }

  /**
   * Appends one entry durably (write + fdatasync on the libuv pool, so an async-commit writer does
   * not block the event loop). Versions must grow; callers serialise appends.
   */
  async append(entry: ChangelogEntry): Promise<void> {
    const payload = encodeEntry(entry);
    const last = this.lastVersion;
    if (last !== undefined && entry.version <= last) {
      throw new ChangelogCorruptError(this.dir, `append of version ${entry.version} after ${last}`);
    }
    // A gap is legal after a snapshot newer than the log (an async-commit crash lost the tail, or an
    // import): the entries below it are never replayed on top of that snapshot. It opens a segment.
    const segments = this.log.segments;
    const current = segments[segments.length - 1];
    if (current && current.count > 0 && current.lastVersion !== entry.version - 1)
      this.log.startSegment(entry.version);
    await this.log.append(entry.version, payload);
  }

  /** Starts a new segment for entries from `first` on (called after a snapshot). */
  roll(first: number): void {
    const segments = this.log.segments;
    const current = segments[segments.length - 1];
    if (current && current.count === 0) return;
    this.log.startSegment(first);
  }

  /** Entries with from <= version <= to, in order. Throws if any is missing. */
  *read(from: number, to: number): Generator<ChangelogEntry> {
    let next = from;
    for (const { version, payload } of this.log.records(from, to)) {
      if (version !== next) break;
      // a copy per entry: the decoded keys and values are views that outlive this read
      yield decodeEntry(new Uint8Array(payload));
      next++;
    }
    if (next <= to) throw new ChangelogCorruptError(this.dir, `version ${next} is missing`);
  }

  /** Deletes whole segments whose entries are all below `version` (they are covered by a snapshot). */
  truncateBefore(version: number): void {
    while (this.log.segments.length > 1 && this.log.segments[1].firstVersion <= version)
      this.log.dropOldestSegment();
  }

  /** Drops every entry above `version` (rollback). */
  truncateAfter(version: number): void {
    this.log.truncateAfter(version);
  }

  close(): void {
    this.log.close();
  }
}
