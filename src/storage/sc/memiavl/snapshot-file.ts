/**
 * The on-disk layout of one tree's snapshot, loaded without rebuilding the tree: nodes are read
 * straight out of fixed-size records, so opening a 1M-key tree is a few file reads, not 1M inserts.
 *
 *   branches  64-byte records in post-order: u32 version, u32 size, u8 height, 3 pad,
 *             i32 left, i32 right (child refs, see below), u32 keyLeaf (index of the leaf whose key is
 *             this node's key: the first leaf of its right subtree), 32-byte hash, 8-byte key prefix
 *   leaves    64-byte records in key order: u32 version, u32 keyLen, u32 kvOffset lo, u32 kvOffset hi,
 *             u32 valueLen, 4 pad, 32-byte hash, 8-byte key prefix
 * The key prefix (first 8 key bytes, zero-padded, as two big-endian u32 numbers) lets a lookup decide
 * almost every branch from the record it already has in cache, instead of two more random reads
 * (leaf record, then key bytes): reads are memory-latency bound on a 1M-key tree.
 *   kvs       key bytes immediately followed by value bytes, per leaf
 *   meta.json {version, root, branches, leaves, rootHash}
 *
 * A child ref is a branch index (>= 0) or `-(leafIndex + 1)` for a leaf. The same encoding is used
 * in memory: a tree node's child is either a MemNode object or a number into its base snapshot.
 */
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { ChainError } from '../../../util/errors.ts';
import { toHex } from '../../../primitives/bytes.ts';

export const RECORD_SIZE = 64;
const W = RECORD_SIZE / 4;

export interface SnapshotMeta {
  version: number;
  /** Root ref, or null for an empty tree. */
  root: number | null;
  branches: number;
  leaves: number;
  rootHash: string;
}

export class SnapshotCorruptError extends ChainError {
  constructor(path: string, why: string) {
    super('SC_SNAPSHOT_CORRUPT', `state commit snapshot ${path} is corrupt: ${why}`);
  }
}

function aligned(buf: Buffer): Uint8Array {
  // Uint32Array views need 4-byte alignment; a pooled Buffer may not have it
  if (buf.byteOffset % 4 === 0) return new Uint8Array(buf.buffer, buf.byteOffset, buf.length);
  return new Uint8Array(buf);
}

export class TreeSnapshot {
  readonly meta: SnapshotMeta;
  readonly branches: Uint8Array;
  readonly leaves: Uint8Array;
  readonly kvs: Uint8Array;
  private readonly b32: Uint32Array;
  private readonly bi32: Int32Array;
  private readonly l32: Uint32Array;

  constructor(meta: SnapshotMeta, branches: Uint8Array, leaves: Uint8Array, kvs: Uint8Array) {
    this.meta = meta;
    this.branches = branches;
    this.leaves = leaves;
    this.kvs = kvs;
    this.b32 = new Uint32Array(branches.buffer, branches.byteOffset, branches.length / 4);
    this.bi32 = new Int32Array(branches.buffer, branches.byteOffset, branches.length / 4);
    this.l32 = new Uint32Array(leaves.buffer, leaves.byteOffset, leaves.length / 4);
  }

  static load(dir: string): TreeSnapshot {
    const metaPath = join(dir, 'meta.json');
    if (!existsSync(metaPath)) throw new SnapshotCorruptError(dir, 'meta.json is missing');
    const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as SnapshotMeta;
    const branches = aligned(readFileSync(join(dir, 'branches')));
    const leaves = aligned(readFileSync(join(dir, 'leaves')));
    const kvs = aligned(readFileSync(join(dir, 'kvs')));
    if (branches.length !== meta.branches * RECORD_SIZE || leaves.length !== meta.leaves * RECORD_SIZE) {
      throw new SnapshotCorruptError(dir, 'record files do not match meta.json counts');
    }
    if (meta.leaves > 0 && meta.branches !== meta.leaves - 1)
      throw new SnapshotCorruptError(dir, 'branch count is not leaves - 1');
    const snap = new TreeSnapshot(meta, branches, leaves, kvs);
    if (meta.leaves > 0) {
      const last = meta.leaves - 1;
      if (snap.leafKeyOffset(last) + snap.leafKeyLen(last) + snap.leafValueLen(last) !== kvs.length) {
        throw new SnapshotCorruptError(dir, 'kvs file length does not match the leaf records');
      }
      // the root record must carry the hash recorded when the snapshot was written
      const root = meta.root!;
      const hash = root < 0 ? snap.leafHash(-root - 1) : snap.branchHash(root);
      if (toHex(hash) !== meta.rootHash)
        throw new SnapshotCorruptError(dir, 'root record hash differs from meta.json');
    }
    return snap;
  }

  get version(): number {
    return this.meta.version;
  }

  // branch accessors (index >= 0)
  branchVersion(i: number): number {
    return this.b32[i * W];
  }
  branchSize(i: number): number {
    return this.b32[i * W + 1];
  }
  branchHeight(i: number): number {
    return this.branches[i * RECORD_SIZE + 8];
  }
  branchLeft(i: number): number {
    return this.bi32[i * W + 3];
  }
  branchRight(i: number): number {
    return this.bi32[i * W + 4];
  }
  branchKeyLeaf(i: number): number {
    return this.b32[i * W + 5];
  }
  branchHash(i: number): Uint8Array {
    const o = i * RECORD_SIZE + 24;
    return this.branches.subarray(o, o + 32);
  }

  // leaf accessors (leaf index, not ref)
  leafVersion(l: number): number {
    return this.l32[l * W];
  }
  leafKeyLen(l: number): number {
    return this.l32[l * W + 1];
  }
  leafKeyOffset(l: number): number {
    return this.l32[l * W + 2] + this.l32[l * W + 3] * 0x100000000;
  }
  leafValueLen(l: number): number {
    return this.l32[l * W + 4];
  }
  leafKey(l: number): Uint8Array {
    const o = this.leafKeyOffset(l);
    return this.kvs.subarray(o, o + this.leafKeyLen(l));
  }
  leafValue(l: number): Uint8Array {
    const o = this.leafKeyOffset(l) + this.leafKeyLen(l);
    return this.kvs.subarray(o, o + this.leafValueLen(l));
  }
  leafHash(l: number): Uint8Array {
    const o = l * RECORD_SIZE + 24;
    return this.leaves.subarray(o, o + 32);
  }

  private leafP0: Uint32Array | undefined;
  /** Every SAMPLE-th entry of leafP0 (64 KB for 1M keys): the first steps of a search stay in cache. */
  private leafP0Sample: Uint32Array | undefined;

  /**
   * First prefix word of every leaf, in key order: 4 bytes per leaf (4 MB for 1M keys) instead of a
   * 64-byte record, so a binary search over it stays mostly in cache. Built on first use.
   */
  private leafPrefixes(): Uint32Array {
    if (!this.leafP0) {
      const p = new Uint32Array(this.meta.leaves);
      for (let l = 0; l < p.length; l++) p[l] = this.l32[l * W + 14];
      this.leafP0 = p;
      const sample = new Uint32Array(Math.ceil(p.length / SAMPLE));
      for (let j = 0; j < sample.length; j++) sample[j] = p[j * SAMPLE];
      this.leafP0Sample = sample;
    }
    return this.leafP0;
  }

  /** Index of the first leaf of branch i's subtree (its leaves are contiguous in key order). */
  branchFirstLeaf(i: number): number {
    const left = this.branchLeft(i);
    return this.branchKeyLeaf(i) - (left < 0 ? 1 : this.branchSize(left));
  }

  /**
   * Looks `key` up among the leaves of branch i's subtree by binary search on the prefix array
   * (same answer as descending the branches, with fewer cache misses). Returns the leaf or -1.
   */
  findInBranch(key: Uint8Array, p0: number, i: number): number {
    const P = this.leafPrefixes();
    let lo = this.branchFirstLeaf(i);
    const end = lo + this.branchSize(i);
    let hi = end;
    if (hi - lo > 4 * SAMPLE) {
      // Narrow [lo, hi) on the sample first, by prefix alone: a sampled leaf with a smaller prefix
      // is before the key, one with a larger prefix after it (equal prefixes stay in the window).
      const S = this.leafP0Sample!;
      const first = Math.ceil(lo / SAMPLE); // samples first .. last-1 lie in [lo, hi)
      const last = Math.floor((hi - 1) / SAMPLE) + 1;
      let a = first; // first sample with a prefix >= p0
      for (let y = last; a < y;) {
        const m = (a + y) >>> 1;
        if (S[m] < p0) a = m + 1;
        else y = m;
      }
      let b = a; // first sample with a prefix > p0
      for (let y = last; b < y;) {
        const m = (b + y) >>> 1;
        if (S[m] <= p0) b = m + 1;
        else y = m;
      }
      if (a > first) lo = (a - 1) * SAMPLE + 1;
      if (b < last) hi = b * SAMPLE;
    }
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const q = P[mid];
      if (q < p0 || (q === p0 && this.compareLeafKey(key, mid) > 0)) lo = mid + 1;
      else hi = mid;
    }
    return lo < end && P[lo] === p0 && this.compareLeafKey(key, lo) === 0 ? lo : -1;
  }

  /** Compares a key (and its keyPrefix words) with branch i's key; the read hot path. */
  compareBranchKey(key: Uint8Array, p0: number, p1: number, i: number): number {
    const b = i * W;
    const q0 = this.b32[b + 14];
    if (p0 !== q0) return p0 < q0 ? -1 : 1;
    const q1 = this.b32[b + 15];
    if (p1 !== q1) return p1 < q1 ? -1 : 1;
    return this.compareLeafKey(key, this.b32[b + 5]);
  }

  /** Copies the 32-byte hash of a node ref into out[off..off+32) without allocating a view. */
  copyHash(ref: number, out: Uint8Array, off: number): void {
    const src = ref < 0 ? this.leaves : this.branches;
    const base = (ref < 0 ? -ref - 1 : ref) * RECORD_SIZE + 24;
    for (let i = 0; i < 32; i++) out[off + i] = src[base + i];
  }

  /** Compares `key` with leaf l's key without allocating. */
  compareLeafKey(key: Uint8Array, l: number): number {
    const kvs = this.kvs;
    const off = this.leafKeyOffset(l);
    const len = this.leafKeyLen(l);
    const n = key.length < len ? key.length : len;
    for (let i = 0; i < n; i++) {
      const d = key[i] - kvs[off + i];
      if (d !== 0) return d;
    }
    return key.length - len;
  }
}

/** Leaves per entry of the sampled prefix index. */
const SAMPLE = 64;

/** keyPrefix(key)[0] without the array. */
export function keyPrefix0(key: Uint8Array): number {
  const n = key.length;
  if (n >= 4) return ((key[0] << 24) | (key[1] << 16) | (key[2] << 8) | key[3]) >>> 0;
  return (((n > 0 ? key[0] : 0) << 24) | ((n > 1 ? key[1] : 0) << 16) | ((n > 2 ? key[2] : 0) << 8)) >>> 0;
}

/** First 8 key bytes (zero-padded) as two big-endian u32: comparing them orders keys like memcmp. */
export function keyPrefix(key: Uint8Array): [number, number] {
  const b = (i: number): number => (i < key.length ? key[i] : 0);
  return [
    ((b(0) << 24) | (b(1) << 16) | (b(2) << 8) | b(3)) >>> 0,
    ((b(4) << 24) | (b(5) << 16) | (b(6) << 8) | b(7)) >>> 0,
  ];
}

function putPrefix(dv: DataView, o: number, key: Uint8Array): void {
  const [p0, p1] = keyPrefix(key);
  dv.setUint32(o + 56, p0, true);
  dv.setUint32(o + 60, p1, true);
}

/** Encodes one branch record into `out` at byte offset `o`. */
export function putBranchRecord(
  out: Uint8Array,
  o: number,
  version: number,
  size: number,
  height: number,
  left: number,
  right: number,
  keyLeaf: number,
  hash: Uint8Array,
  key: Uint8Array,
): void {
  const dv = new DataView(out.buffer, out.byteOffset);
  putPrefix(dv, o, key);
  dv.setUint32(o, version, true);
  dv.setUint32(o + 4, size, true);
  out[o + 8] = height;
  out[o + 9] = out[o + 10] = out[o + 11] = 0;
  dv.setInt32(o + 12, left, true);
  dv.setInt32(o + 16, right, true);
  dv.setUint32(o + 20, keyLeaf, true);
  out.set(hash, o + 24);
}

export function putLeafRecord(
  out: Uint8Array,
  o: number,
  version: number,
  keyLen: number,
  kvOffset: number,
  valueLen: number,
  hash: Uint8Array,
  key: Uint8Array,
): void {
  const dv = new DataView(out.buffer, out.byteOffset);
  putPrefix(dv, o, key);
  dv.setUint32(o, version, true);
  dv.setUint32(o + 4, keyLen, true);
  dv.setUint32(o + 8, kvOffset % 0x100000000, true);
  dv.setUint32(o + 12, Math.floor(kvOffset / 0x100000000), true);
  dv.setUint32(o + 16, valueLen, true);
  dv.setUint32(o + 20, 0, true);
  out.set(hash, o + 24);
}
