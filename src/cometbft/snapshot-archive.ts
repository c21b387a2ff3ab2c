/**
 * A state-sync snapshot as one file an operator can copy between machines (`chaind snapshots
 * export` / `restore`). Layout, all integers big-endian:
 *
 *   magic        8 bytes  "CHAINDSS"
 *   version      u32      1
 *   header len   u32      then that many bytes of JSON: the snapshot's metadata.json fields plus
 *                         `hash`, the snapshot hash peers are offered (SHA-256 over the chunk hashes)
 *   per chunk    u32 length ‖ the chunk's bytes, in order, exactly `chunks` of them; nothing after
 *
 * Every chunk is checked against its SHA-256 on the way out and on the way in, so a damaged archive
 * is refused naming the chunk, and a restored snapshot is offered only once it is whole.
 */
import { existsSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { join } from 'node:path';
import { equalBytes, fromHex, toHex } from '../primitives/bytes.ts';
import { ChainError } from '../util/errors.ts';
import {
  chunkMatches,
  chunkName,
  MAX_CHUNK_BYTES,
  parseSnapshotMeta,
  readSnapshotItems,
  SNAPSHOT_FORMAT,
  SnapshotError,
  SnapshotExistsError,
  snapshotHash,
  snapshotMetaJson,
  type SnapshotMeta,
  type SnapshotStore,
  writeFileSynced,
} from './snapshots.ts';

const MAGIC = Buffer.from('CHAINDSS', 'ascii');
const ARCHIVE_VERSION = 1;
/** 120k chunk hashes in hex and the other fields stay far below this. */
const MAX_HEADER_BYTES = 64 * 1024 * 1024;

export interface ArchiveSummary {
  meta: SnapshotMeta;
  /** The snapshot hash peers are offered. */
  hash: Uint8Array;
  file: string;
  /** Bytes of the archive file. */
  archiveBytes: number;
}

export class SnapshotNotFoundError extends ChainError {
  constructor(height: number, dir: string) {
    super(
      'STATE_SYNC_SNAPSHOT_NOT_FOUND',
      `no snapshot of height ${height} in ${dir} (chaind snapshots list shows them)`,
    );
  }
}

/**
 * Writes the stored snapshot of `height` into `output` (through a temporary file renamed at the
 * end), checking each chunk against its hash as it is read. An existing `output` is replaced only
 * with `force`.
 */
export async function exportSnapshotArchive(
  store: SnapshotStore,
  height: number,
  output: string,
  o: { force?: boolean } = {},
): Promise<ArchiveSummary> {
  const meta = store.meta(height);
  if (!meta) throw new SnapshotNotFoundError(height, store.dir);
  if (existsSync(output) && !o.force)
    throw new ChainError('BAD_ARGUMENT', `${output} already exists (--force replaces it)`);
  const hash = snapshotHash(meta.chunkHashes);
  const header = Buffer.from(
    JSON.stringify({ ...JSON.parse(snapshotMetaJson(meta)), hash: toHex(hash) }),
    'utf8',
  );
  const partial = `${output}.partial-${process.pid}`;
  let fh: FileHandle;
  try {
    fh = await open(partial, 'w');
  } catch (err) {
    throw new ChainError(
      'BAD_ARGUMENT',
      `cannot write ${output}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  let archiveBytes = 0;
  try {
    const write = async (b: Uint8Array) => {
      await fh.write(b);
      archiveBytes += b.length;
    };
    await write(MAGIC);
    await write(u32(ARCHIVE_VERSION));
    await write(u32(header.length));
    await write(header);
    for (let i = 0; i < meta.chunks; i++) {
      const path = store.chunkPath(height, i);
      let chunk: Buffer;
      try {
        chunk = readFileSync(path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        throw new SnapshotError(
          `chunk ${i} of the snapshot of height ${height} is gone (${path}); was the snapshot deleted meanwhile?`,
        );
      }
      if (!chunkMatches(chunk, meta.chunkHashes[i]))
        throw new SnapshotError(
          `chunk ${i} of the snapshot of height ${height} does not match its SHA-256 in metadata.json (${path}): the stored snapshot is damaged`,
        );
      await write(u32(chunk.length));
      await write(chunk);
    }
    await fh.sync();
    await fh.close();
    renameSync(partial, output);
  } catch (err) {
    await fh.close().catch(() => undefined);
    rmSync(partial, { force: true });
    throw err;
  }
  return { meta, hash, file: output, archiveBytes };
}

/** An archive opened for reading: its metadata (checked) and its chunks, each checked as it is read. */
export interface SnapshotArchive {
  meta: SnapshotMeta;
  hash: Uint8Array;
  /** The chunks in order; throws naming the chunk that is damaged, short or followed by extra bytes. */
  chunks(): AsyncGenerator<Uint8Array>;
  close(): Promise<void>;
}

export async function openSnapshotArchive(file: string): Promise<SnapshotArchive> {
  let fh: FileHandle;
  try {
    fh = await open(file, 'r');
  } catch (err) {
    throw new ChainError(
      'BAD_ARGUMENT',
      `cannot open snapshot archive ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  const fail = (what: string) => new SnapshotError(`snapshot archive ${file}: ${what}`);
  try {
    let pos = 0;
    const read = async (n: number, what: string): Promise<Buffer> => {
      const buf = Buffer.alloc(n);
      let got = 0;
      while (got < n) {
        const { bytesRead } = await fh.read(buf, got, n - got, pos + got);
        if (bytesRead === 0) throw fail(`the file ends inside ${what} (truncated)`);
        got += bytesRead;
      }
      pos += n;
      return buf;
    };
    const magic = await read(MAGIC.length, 'the magic');
    if (!magic.equals(MAGIC)) throw fail('not a chaind snapshot archive (no CHAINDSS magic)');
    const version = (await read(4, 'the version')).readUInt32BE(0);
    if (version !== ARCHIVE_VERSION)
      throw fail(`archive version ${version}; this chaind reads version ${ARCHIVE_VERSION}`);
    const headerLen = (await read(4, 'the header length')).readUInt32BE(0);
    if (headerLen > MAX_HEADER_BYTES) throw fail(`a header of ${headerLen} bytes is not plausible`);
    const headerText = (await read(headerLen, 'the header')).toString('utf8');
    const meta = parseSnapshotMeta(headerText, file);
    const claimed = (JSON.parse(headerText) as { hash?: unknown }).hash;
    if (typeof claimed !== 'string' || !/^[0-9a-fA-F]{64}$/.test(claimed))
      throw fail('the header has no snapshot hash');
    const hash = snapshotHash(meta.chunkHashes);
    if (!equalBytes(fromHex(claimed), hash))
      throw fail(`the snapshot hash ${claimed} is not the hash of its chunk hashes: the metadata is damaged`);
    if (meta.format !== SNAPSHOT_FORMAT)
      throw fail(`a snapshot of format ${meta.format}; this chaind reads format ${SNAPSHOT_FORMAT}`);
    const size = (await fh.stat()).size;
    async function* chunks(): AsyncGenerator<Uint8Array> {
      let total = 0;
      for (let i = 0; i < meta.chunks; i++) {
        const len = (await read(4, `the length of chunk ${i}`)).readUInt32BE(0);
        if (len > MAX_CHUNK_BYTES)
          throw fail(`chunk ${i} is ${len} bytes, more than a peer can be sent (${MAX_CHUNK_BYTES})`);
        const chunk = await read(len, `chunk ${i}`);
        if (!chunkMatches(chunk, meta.chunkHashes[i]))
          throw fail(`chunk ${i} of ${meta.chunks} does not match its SHA-256 in the metadata (corrupted)`);
        total += len;
        yield chunk;
      }
      if (pos !== size) throw fail(`${size - pos} bytes follow the last chunk`);
      if (total !== meta.size) throw fail(`the chunks hold ${total} bytes; the metadata says ${meta.size}`);
    }
    return { meta, hash, chunks, close: () => fh.close() };
  } catch (err) {
    await fh.close();
    throw err;
  }
}

/**
 * Loads an archive into the store: every chunk checked against the metadata, the whole stream
 * decoded (its item count must be the metadata's), then the snapshot renamed into place, where the
 * node offers it to peers from its next ListSnapshots on. An existing snapshot of the same height is
 * replaced only with `force`.
 */
export async function restoreSnapshotArchive(
  store: SnapshotStore,
  file: string,
  o: { force?: boolean } = {},
): Promise<ArchiveSummary> {
  const archive = await openSnapshotArchive(file);
  const { meta, hash } = archive;
  let staging: string | undefined;
  try {
    if (store.meta(meta.height) && !o.force) throw new SnapshotExistsError(meta.height, store.dir);
    staging = store.stagingDir(`import-${meta.height}-${process.pid}`);
    let index = 0;
    for await (const chunk of archive.chunks())
      await writeFileSynced(join(staging, chunkName(index++)), chunk);
    const dir = staging;
    const files = function* () {
      for (let i = 0; i < meta.chunks; i++) yield readFileSync(join(dir, chunkName(i)));
    };
    let items = 0;
    try {
      for await (const _ of readSnapshotItems(files())) items++;
    } catch (err) {
      throw new SnapshotError(`snapshot archive ${file}: ${(err as Error).message}`);
    }
    if (items !== meta.items)
      throw new SnapshotError(
        `snapshot archive ${file}: the stream holds ${items} items; the metadata says ${meta.items}`,
      );
    await writeFileSynced(join(staging, 'metadata.json'), snapshotMetaJson(meta));
    store.install(meta.height, staging, o.force === true);
    staging = undefined;
  } finally {
    await archive.close();
    if (staging) rmSync(staging, { recursive: true, force: true });
  }
  return { meta, hash, file, archiveBytes: statSync(file).size };
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n, 0);
  return b;
}
