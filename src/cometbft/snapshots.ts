/**
 * State-sync snapshots on disk, offered to peers through ABCI (ListSnapshots, LoadSnapshotChunk) and
 * read back when this node restores one (ApplySnapshotChunk).
 *
 * Format 1, one directory per height, `<dir>/<height>/`:
 *   chunk-000000 …   the State Commit export (Cosmos `SnapshotItem`s, each as uvarint length ‖
 *                    protobuf, the stream `snapshot-items.ts` reads) zlib-deflated as one stream
 *                    and cut into pieces of `chunkBytes` (the last one shorter)
 *   metadata.json    { format, height, chunks, chunkHashes (SHA-256 of each chunk, hex), appHash,
 *                    items, bytes }
 * Written into `.tmp-<height>` and renamed, so a listed snapshot is always complete. What ABCI
 * advertises: hash = SHA-256 over the chunk hashes in order, metadata = the chunk hashes
 * concatenated (32 bytes each), so a restoring node checks every chunk before it decompresses any.
 *
 * Pinning: keep-recent counts snapshots, and a fast interval turns them over in seconds, faster than
 * a peer gets from listing a snapshot to fetching its last chunk. A snapshot offered to a peer
 * (ListSnapshots) or whose chunk was served (LoadSnapshotChunk) within the last `pinQuietMs` is kept
 * beyond keep-recent, at most `MAX_PINNED_SNAPSHOTS` of them (those being served first, then the
 * newest offered), and deleted by the first prune after it went quiet (docs/adr/0035).
 */
import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { createDeflate, createInflate } from 'node:zlib';
import { SnapshotItem as SnapshotItemCodec } from 'cosmjs-types/cosmos/store/snapshots/v1/snapshot';
import type { SnapshotItem } from 'cosmjs-types/cosmos/store/snapshots/v1/snapshot';
import { putUvarint, uvarintLength } from '../codec/varint.ts';
import { sha256 } from '../crypto/hash.ts';
import { concatBytes, equalBytes, fromHex, toHex } from '../primitives/bytes.ts';
import { ChainError } from '../util/errors.ts';
import { CHUNK_REQUEST_TIMEOUT_MS } from './config.ts';

export const SNAPSHOT_FORMAT = 1;
/** Chunks a peer fetches one by one: large enough for few round trips, small for a P2P message. */
export const DEFAULT_CHUNK_BYTES = 10 * 1024 * 1024;
/** CometBFT drops a chunk message above 16e6 bytes: a chunk stays below it with room for the envelope. */
export const MAX_CHUNK_BYTES = 15 * 1024 * 1024;
export const MIN_CHUNK_BYTES = 1024;
/**
 * ListSnapshots answers travel in CometBFT messages of at most 4e6 bytes, and the metadata is 32 bytes
 * per chunk: a snapshot of more chunks could never be offered.
 */
const MAX_CHUNKS = 120_000;
const METADATA = 'metadata.json';
/** Bytes of encoded items handed to the compressor at a time. */
const WRITE_BYTES = 256 * 1024;
/**
 * How long a snapshot stays pinned after it was last offered or served: a restoring peer lists
 * snapshots, waits its discovery time (CometBFT's default 15 s) and verifies the height with its light
 * client (at most 30 s) before it asks for the first chunk, and asks again for a chunk every
 * chunk_request_timeout; a peer silent for this long has given the snapshot up (restore-progress.ts
 * gives up after 3 × chunk_request_timeout).
 */
export const SNAPSHOT_PIN_QUIET_MS = 6 * CHUNK_REQUEST_TIMEOUT_MS;
/** Snapshots kept beyond keep-recent for peers: stuck or slow peers cannot fill the disk. */
export const MAX_PINNED_SNAPSHOTS = 2;

export interface SnapshotMeta {
  format: number;
  height: number;
  chunks: number;
  /** SHA-256 of each chunk, in order. */
  chunkHashes: Uint8Array[];
  /** App hash of the state the snapshot holds (the header of block height + 1 carries it). */
  appHash: Uint8Array;
  /** Snapshot items, uncompressed stream bytes and compressed bytes (the chunks), for the operator. */
  items: number;
  bytes: number;
  size: number;
}

export class SnapshotError extends ChainError {
  constructor(message: string) {
    super('STATE_SYNC_SNAPSHOT_INVALID', message);
  }
}

/** The hash ABCI advertises for a snapshot: SHA-256 over its chunk hashes in order. */
export function snapshotHash(chunkHashes: Uint8Array[]): Uint8Array {
  return sha256(concatBytes(...chunkHashes));
}

/** ABCI metadata: the chunk hashes concatenated. */
export function encodeSnapshotMetadata(chunkHashes: Uint8Array[]): Uint8Array {
  return concatBytes(...chunkHashes);
}

export function decodeSnapshotMetadata(metadata: Uint8Array, chunks: number): Uint8Array[] {
  if (metadata.length !== 32 * chunks)
    throw new SnapshotError(
      `snapshot metadata is ${metadata.length} bytes; ${chunks} chunk hashes need ${32 * chunks}`,
    );
  const out: Uint8Array[] = [];
  for (let i = 0; i < chunks; i++) out.push(metadata.slice(32 * i, 32 * i + 32));
  return out;
}

export interface SnapshotStoreOptions {
  dir: string;
  /** Snapshots kept; older ones are deleted after each new one. */
  keepRecent: number;
  chunkBytes?: number;
  /** How long an offered or served snapshot outlives keep-recent (default SNAPSHOT_PIN_QUIET_MS). */
  pinQuietMs?: number;
  now?: () => number;
}

/** When peers last used a snapshot: offered it in ListSnapshots, or were served one of its chunks. */
interface PinUse {
  offeredAt?: number;
  servedAt?: number;
}

export class SnapshotStore {
  readonly dir: string;
  private readonly keepRecent: number;
  private readonly chunkBytes: number;
  private readonly pinQuietMs: number;
  private readonly now: () => number;
  private readonly uses = new Map<number, PinUse>();

  constructor(o: SnapshotStoreOptions) {
    this.dir = o.dir;
    this.keepRecent = Math.max(1, o.keepRecent);
    this.chunkBytes = o.chunkBytes ?? DEFAULT_CHUNK_BYTES;
    this.pinQuietMs = o.pinQuietMs ?? SNAPSHOT_PIN_QUIET_MS;
    this.now = o.now ?? Date.now;
  }

  /** Peers were offered these snapshots (ListSnapshots): one of them is about to be fetched. */
  noteOffered(heights: number[]): void {
    const at = this.now();
    for (const h of heights) this.uses.set(h, { ...this.uses.get(h), offeredAt: at });
  }

  /** A chunk of the snapshot at `height` was served to a peer: a restore is under way. */
  noteServed(height: number): void {
    this.uses.set(height, { ...this.uses.get(height), servedAt: this.now() });
  }

  /**
   * The snapshots peers used within the quiet period, at most MAX_PINNED_SNAPSHOTS beyond the newest
   * keep-recent ones: those served most recently first (a restore under way), then the newest offered.
   */
  pinned(): number[] {
    const now = this.now();
    const recent = (t: number | undefined) => t !== undefined && now - t < this.pinQuietMs;
    const served: [number, number][] = [];
    const offered: number[] = [];
    for (const [h, use] of this.uses) {
      if (recent(use.servedAt)) served.push([h, use.servedAt!]);
      else if (recent(use.offeredAt)) offered.push(h);
      else this.uses.delete(h);
    }
    // newest first: the first keep-recent are kept anyway; a height no longer on disk pins nothing
    const beyond = new Set(
      this.list()
        .slice(this.keepRecent)
        .map((m) => m.height),
    );
    const ranked = [
      ...served.sort((a, b) => b[1] - a[1] || b[0] - a[0]).map(([h]) => h),
      ...offered.sort((a, b) => b - a),
    ];
    return ranked.filter((h) => beyond.has(h)).slice(0, MAX_PINNED_SNAPSHOTS);
  }

  /** Complete snapshots, newest first (a `.tmp-` directory of an interrupted write is not one). */
  list(): SnapshotMeta[] {
    if (!existsSync(this.dir)) return [];
    const out: SnapshotMeta[] = [];
    for (const name of readdirSync(this.dir)) {
      if (!/^\d+$/.test(name)) continue;
      const meta = this.meta(Number(name));
      if (meta) out.push(meta);
    }
    return out.sort((a, b) => b.height - a.height);
  }

  /**
   * The metadata of the snapshot at `height`; undefined when there is none (also when it is being
   * deleted by keep-recent while a peer asks: a missing chunk is an answer, a failed ABCI call is not).
   */
  meta(height: number): SnapshotMeta | undefined {
    const path = join(this.dir, String(height), METADATA);
    const text = readIfPresent(path);
    if (text === undefined) return undefined;
    return parseSnapshotMeta(text.toString('utf8'), path);
  }

  /** Where chunk `index` of the snapshot at `height` is (whether or not it exists). */
  chunkPath(height: number, index: number): string {
    return join(this.dir, String(height), chunkName(index));
  }

  /** Chunk `index` of the snapshot at `height`, or undefined when there is no such chunk. */
  chunk(height: number, format: number, index: number): Uint8Array | undefined {
    const meta = this.meta(height);
    if (!meta || meta.format !== format || !Number.isInteger(index) || index < 0 || index >= meta.chunks)
      return undefined;
    return readIfPresent(join(this.dir, String(height), chunkName(index)));
  }

  /**
   * Writes the snapshot of `height` from `items` (atomically: a temp directory renamed when
   * complete), then deletes the snapshots beyond keep-recent.
   */
  async write(
    height: number,
    appHash: Uint8Array,
    items: AsyncIterable<SnapshotItem>,
  ): Promise<SnapshotMeta> {
    mkdirSync(this.dir, { recursive: true });
    const tmp = join(this.dir, `.tmp-${height}`);
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp);
    try {
      const { chunkHashes, count, bytes, size } = await writeChunks(tmp, this.chunkBytes, items);
      const meta: SnapshotMeta = {
        format: SNAPSHOT_FORMAT,
        height,
        chunks: chunkHashes.length,
        chunkHashes,
        appHash,
        items: count,
        bytes,
        size,
      };
      await writeFileSynced(join(tmp, METADATA), snapshotMetaJson(meta));
      this.install(height, tmp, true);
      this.prune();
      return meta;
    } catch (err) {
      rmSync(tmp, { recursive: true, force: true });
      throw err;
    }
  }

  /**
   * A fresh directory inside the store for a snapshot being assembled (its name is not a height, so
   * nothing lists or offers it until `install`).
   */
  stagingDir(label: string): string {
    mkdirSync(this.dir, { recursive: true });
    const dir = join(this.dir, `.${label}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    return dir;
  }

  /**
   * Moves a complete snapshot directory (chunks and metadata) into place as the snapshot of
   * `height`; an existing one of that height is replaced only when `replace` (otherwise: an error).
   */
  install(height: number, from: string, replace: boolean): void {
    const final = join(this.dir, String(height));
    if (existsSync(final)) {
      if (!replace) throw new SnapshotExistsError(height, this.dir);
      this.delete(height);
    }
    renameSync(from, final);
  }

  /**
   * Removes the snapshot of `height`; false when there is none. Renamed away first, so a listing
   * (or a peer's ListSnapshots) never sees a half-deleted snapshot.
   */
  delete(height: number): boolean {
    const final = join(this.dir, String(height));
    if (!existsSync(final)) return false;
    const gone = join(this.dir, `.delete-${height}-${process.pid}`);
    renameSync(final, gone);
    rmSync(gone, { recursive: true, force: true });
    return true;
  }

  /**
   * Deletes all but the newest keep-recent snapshots and those pinned for peers; returns the heights
   * kept for peers.
   */
  prune(): number[] {
    const pinned = this.pinned();
    for (const old of this.list().slice(this.keepRecent))
      if (!pinned.includes(old.height)) this.delete(old.height);
    return pinned;
  }
}

export class SnapshotExistsError extends ChainError {
  constructor(height: number, dir: string) {
    super(
      'STATE_SYNC_SNAPSHOT_EXISTS',
      `a snapshot of height ${height} already exists in ${dir} (--force replaces it)`,
    );
  }
}

/** metadata.json of a snapshot. */
export function snapshotMetaJson(meta: SnapshotMeta): string {
  return JSON.stringify({
    ...meta,
    chunkHashes: meta.chunkHashes.map((h) => toHex(h)),
    appHash: toHex(meta.appHash),
  });
}

/**
 * Reads and checks a snapshot's metadata JSON (from disk or an archive): every field present and of
 * its kind, one 32-byte hash per chunk. `where` names the source in the error.
 */
export function parseSnapshotMeta(text: string, where: string): SnapshotMeta {
  let j: Record<string, unknown>;
  try {
    j = JSON.parse(text) as Record<string, unknown>;
  } catch (err) {
    throw new SnapshotError(`snapshot metadata in ${where} is not JSON: ${(err as Error).message}`);
  }
  const bad = (what: string) => new SnapshotError(`snapshot metadata in ${where}: ${what}`);
  if (typeof j !== 'object' || j === null) throw bad('not an object');
  const count = (k: string, min: number): number => {
    const v = j[k];
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min)
      throw bad(`${k} is ${JSON.stringify(v)}, not an integer >= ${min}`);
    return v;
  };
  const hash = (v: unknown, what: string): Uint8Array => {
    if (typeof v !== 'string' || !/^[0-9a-fA-F]{64}$/.test(v)) throw bad(`${what} is not a 32-byte hex hash`);
    return fromHex(v);
  };
  const format = count('format', 0);
  const height = count('height', 1);
  const chunks = count('chunks', 1);
  if (!Array.isArray(j.chunkHashes) || j.chunkHashes.length !== chunks)
    throw bad(`chunkHashes must list ${chunks} hashes (one per chunk)`);
  return {
    format,
    height,
    chunks,
    chunkHashes: j.chunkHashes.map((h, i) => hash(h, `chunkHashes[${i}]`)),
    appHash: hash(j.appHash, 'appHash'),
    items: count('items', 0),
    bytes: count('bytes', 0),
    size: count('size', 0),
  };
}

function readIfPresent(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

export function chunkName(index: number): string {
  return `chunk-${String(index).padStart(6, '0')}`;
}

/** Deflates the item stream into chunk files of `chunkBytes`; returns their hashes. */
async function writeChunks(
  dir: string,
  chunkBytes: number,
  items: AsyncIterable<SnapshotItem>,
): Promise<{ chunkHashes: Uint8Array[]; count: number; bytes: number; size: number }> {
  const deflate = createDeflate();
  let count = 0;
  let bytes = 0;
  const produce = (async () => {
    try {
      // items are small (a leaf is ~100 bytes): they are gathered into one buffer per write, as a
      // stream write per item costs more than encoding it
      let buf = Buffer.allocUnsafe(WRITE_BYTES);
      let at = 0;
      const flush = async (): Promise<void> => {
        if (at === 0) return;
        const full = deflate.write(buf.subarray(0, at));
        buf = Buffer.allocUnsafe(WRITE_BYTES);
        at = 0;
        // backpressure: the export is paced by the compressor, not buffered whole in memory
        if (!full) await once(deflate, 'drain');
      };
      for await (const item of items) {
        const body = encodeSnapshotItem(item);
        count++;
        if (at + body.length + 10 > buf.length) {
          await flush();
          if (body.length + 10 > buf.length) buf = Buffer.allocUnsafe(body.length + 10);
        }
        at = putUvarint(buf, at, body.length);
        buf.set(body, at);
        at += body.length;
        bytes = bytes + body.length + uvarintLength(body.length);
      }
      await flush();
      deflate.end();
    } catch (err) {
      deflate.destroy(err as Error);
      throw err;
    }
  })();
  const chunkHashes: Uint8Array[] = [];
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let size = 0;
  const cut = async (data: Buffer): Promise<void> => {
    if (chunkHashes.length === MAX_CHUNKS)
      throw new SnapshotError(
        `a snapshot of more than ${MAX_CHUNKS} chunks cannot be offered to peers: raise [state-sync] snapshot-chunk-bytes (${chunkBytes})`,
      );
    size += data.length;
    chunkHashes.push(sha256(data));
    await writeFileSynced(join(dir, chunkName(chunkHashes.length - 1)), data);
  };
  const cutChunks = async (): Promise<void> => {
    for await (const piece of deflate as AsyncIterable<Buffer>) {
      pending.push(piece);
      pendingBytes += piece.length;
      while (pendingBytes >= chunkBytes) {
        const all = Buffer.concat(pending);
        await cut(all.subarray(0, chunkBytes));
        pending = [all.subarray(chunkBytes)];
        pendingBytes = all.length - chunkBytes;
      }
    }
    if (pendingBytes > 0 || chunkHashes.length === 0) await cut(Buffer.concat(pending));
  };
  const consume = (async () => {
    try {
      await cutChunks();
    } catch (err) {
      // the producer waiting for the compressor to drain stops too
      deflate.destroy(err as Error);
      throw err;
    }
  })();
  await Promise.all([produce, consume]);
  return { chunkHashes, count, bytes, size };
}

export async function writeFileSynced(path: string, data: Uint8Array | string): Promise<void> {
  const fh = await open(path, 'w');
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Checks one chunk against its hash from the snapshot's metadata. */
export function chunkMatches(chunk: Uint8Array, expected: Uint8Array): boolean {
  return equalBytes(sha256(chunk), expected);
}

/**
 * The snapshot items of a chunk sequence (already checked against their hashes): inflated as one
 * stream and split at the uvarint length prefixes, item by item (a snapshot is never held whole
 * in memory decompressed).
 */
export async function* readSnapshotItems(
  chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
): AsyncGenerator<SnapshotItem> {
  const inflate = createInflate();
  const feed = (async () => {
    try {
      for await (const c of chunks) if (!inflate.write(c)) await once(inflate, 'drain');
      inflate.end();
    } catch (err) {
      inflate.destroy(err as Error);
    }
  })();
  let buf: Buffer = Buffer.alloc(0);
  try {
    for await (const piece of inflate as AsyncIterable<Buffer>) {
      buf = buf.length === 0 ? piece : Buffer.concat([buf, piece]);
      let off = 0;
      for (;;) {
        const lenAt = readVarint(buf, off);
        if (!lenAt) break;
        const [len, start] = lenAt;
        if (start + len > buf.length) break;
        yield SnapshotItemCodec.decode(buf.subarray(start, start + len));
        off = start + len;
      }
      buf = buf.subarray(off);
    }
  } catch (err) {
    throw new SnapshotError(`snapshot stream cannot be read: ${(err as Error).message}`);
  } finally {
    inflate.destroy();
    await feed;
  }
  if (buf.length > 0)
    throw new SnapshotError(`snapshot stream ends inside an item (${buf.length} bytes left)`);
}

/**
 * `SnapshotItem` protobuf bytes, written by hand for the two kinds an export produces (a store
 * header, an IAVL node): the generic encoder's per-message writer was most of a snapshot's CPU.
 * Identical to the generated encoder's output (proto3: default fields omitted); other kinds go
 * through it.
 */
export function encodeSnapshotItem(item: SnapshotItem): Uint8Array {
  const n = item.iavl;
  if (n && !item.store && !item.extension && !item.extensionPayload && n.height >= 0 && n.version >= 0n) {
    const version = Number(n.version);
    if (Number.isSafeInteger(version)) {
      const inner =
        field(n.key.length) +
        field(n.value.length) +
        (version ? 1 + uvarintLength(version) : 0) +
        (n.height ? 1 + uvarintLength(n.height) : 0);
      const out = new Uint8Array(1 + uvarintLength(inner) + inner);
      let at = 0;
      out[at++] = 0x12;
      at = putUvarint(out, at, inner);
      at = putBytes(out, at, 0x0a, n.key);
      at = putBytes(out, at, 0x12, n.value);
      if (version) {
        out[at++] = 0x18;
        at = putUvarint(out, at, version);
      }
      if (n.height) {
        out[at++] = 0x20;
        at = putUvarint(out, at, n.height);
      }
      return out;
    }
  }
  return SnapshotItemCodec.encode(item).finish();
}

/** Bytes of a length-delimited field of `len` bytes (none when empty, as proto3 omits it). */
function field(len: number): number {
  return len === 0 ? 0 : 1 + uvarintLength(len) + len;
}

function putBytes(out: Uint8Array, at: number, tag: number, b: Uint8Array): number {
  if (b.length === 0) return at;
  out[at++] = tag;
  at = putUvarint(out, at, b.length);
  out.set(b, at);
  return at + b.length;
}

/** A uvarint at `off`, or undefined when the buffer ends inside it. */
function readVarint(buf: Uint8Array, off: number): [number, number] | undefined {
  let value = 0;
  let mul = 1;
  for (let i = off; i < buf.length && i < off + 8; i++) {
    const b = buf[i];
    value += (b & 0x7f) * mul;
    if ((b & 0x80) === 0) return [value, i + 1];
    mul *= 128;
  }
  if (buf.length - off >= 8) throw new SnapshotError('snapshot item length prefix is too long');
  return undefined;
}
