/**
 * Tree nodes. A node is either a MemNode (created or copied since the base snapshot was loaded) or a
 * number naming a record of the base snapshot (`>= 0` branch index, `-(leaf + 1)` leaf). Committed
 * nodes are never mutated: a block copies the path it changes (copy-on-write), so every committed
 * version stays readable and provable while the next one is built.
 */
import { compareBytes } from '../../../primitives/bytes.ts';
import { innerHash, leafHash, room } from './hashing.ts';
import { putUvarint, putZigzag, uvarintLength } from '../../../codec/varint.ts';
import { sha256 } from '../../../crypto/hash.ts';
import { keyPrefix, type TreeSnapshot } from './snapshot-file.ts';
import { MSG_BYTES, OUT_PTR, pad, sha256x4, type Sha256x4 } from './sha256-simd.ts';

const valueHashes = new Uint8Array(128);

export class MemNode {
  height: number;
  size: number;
  version: number;
  key: Uint8Array;
  /** Leaves only. */
  value: Uint8Array | undefined;
  left: NodeRef | undefined;
  right: NodeRef | undefined;
  /** Cached once computed; cleared whenever the node is changed in its own (working) version. */
  hash: Uint8Array | undefined;

  constructor(
    height: number,
    size: number,
    version: number,
    key: Uint8Array,
    value: Uint8Array | undefined,
    left: NodeRef | undefined,
    right: NodeRef | undefined,
  ) {
    this.height = height;
    this.size = size;
    this.version = version;
    this.key = key;
    this.value = value;
    this.left = left;
    this.right = right;
    this.hash = undefined;
  }
}

export type NodeRef = MemNode | number;

export const leafRef = (leaf: number): number => -(leaf + 1);
export const refLeaf = (ref: number): number => -ref - 1;

/** Read access to nodes of one tree version: MemNodes plus the snapshot the numbers refer to. */
export class NodeReader {
  readonly snap: TreeSnapshot | undefined;

  constructor(snap: TreeSnapshot | undefined) {
    this.snap = snap;
  }

  isLeaf(r: NodeRef): boolean {
    return typeof r === 'number' ? r < 0 : r.height === 0;
  }
  height(r: NodeRef): number {
    return typeof r === 'number' ? (r < 0 ? 0 : this.snap!.branchHeight(r)) : r.height;
  }
  size(r: NodeRef): number {
    return typeof r === 'number' ? (r < 0 ? 1 : this.snap!.branchSize(r)) : r.size;
  }
  version(r: NodeRef): number {
    if (typeof r !== 'number') return r.version;
    return r < 0 ? this.snap!.leafVersion(refLeaf(r)) : this.snap!.branchVersion(r);
  }
  key(r: NodeRef): Uint8Array {
    if (typeof r !== 'number') return r.key;
    return this.snap!.leafKey(r < 0 ? refLeaf(r) : this.snap!.branchKeyLeaf(r));
  }
  value(r: NodeRef): Uint8Array | undefined {
    if (typeof r !== 'number') return r.value;
    return r < 0 ? this.snap!.leafValue(refLeaf(r)) : undefined;
  }
  left(r: NodeRef): NodeRef {
    return typeof r === 'number' ? this.snap!.branchLeft(r) : r.left!;
  }
  right(r: NodeRef): NodeRef {
    return typeof r === 'number' ? this.snap!.branchRight(r) : r.right!;
  }

  /** Compares key with the node's key (for branches: the first key of the right subtree). */
  compareKey(key: Uint8Array, r: NodeRef): number {
    if (typeof r !== 'number') return compareBytes(key, r.key);
    if (r < 0) return this.snap!.compareLeafKey(key, refLeaf(r));
    // one descent compares the same key at every level: its prefix words are computed once, by
    // searchKey() at the start of each descent (so a caller reusing a buffer never sees stale words)
    if (key !== this.prefixKey) this.searchKey(key);
    return this.snap!.compareBranchKey(key, this.p0, this.p1, r);
  }

  /** Starts a descent for `key`. */
  searchKey(key: Uint8Array): void {
    this.prefixKey = key;
    [this.p0, this.p1] = keyPrefix(key);
  }

  private prefixKey: Uint8Array | undefined;
  private p0 = 0;
  private p1 = 0;

  /** The node hash; computes and caches MemNode hashes bottom-up (only dirty nodes lack one). */
  hash(r: NodeRef): Uint8Array {
    if (typeof r === 'number') return r < 0 ? this.snap!.leafHash(refLeaf(r)) : this.snap!.branchHash(r);
    if (r.hash) return r.hash;
    r.hash = r.height === 0 ? leafHash(r.version, r.key, r.value!) : this.innerHashOf(r);
    return r.hash;
  }

  /**
   * Hashes every dirty node under `root` (what hash(root) would do), with the inner nodes of each
   * height four at a time on the SIMD SHA-256: they are independent of each other, and a block
   * dirties ~10 inner nodes per changed key, each a two-block SHA-256 whose native one-shot call is
   * mostly overhead. Leaves are batched too, grouped by their SHA-256 block counts.
   */
  hashDirty(root: NodeRef | undefined): void {
    const k = sha256x4();
    if (!k || root === undefined || typeof root === 'number' || root.hash) return;
    const levels: MemNode[][] = [];
    const leaves: MemNode[] = [];
    const stack: MemNode[] = [root];
    while (stack.length > 0) {
      const n = stack.pop()!;
      if (n.height === 0) {
        leaves.push(n);
        continue;
      }
      (levels[n.height] ??= []).push(n);
      const l = n.left!;
      const r = n.right!;
      if (typeof l !== 'number' && !l.hash) stack.push(l);
      if (typeof r !== 'number' && !r.hash) stack.push(r);
    }
    this.hashLeaves(k, leaves);
    const mem = k.mem;
    for (const nodes of levels) {
      if (!nodes) continue;
      for (let i = 0; i < nodes.length; i += 4) {
        const lanes = Math.min(4, nodes.length - i);
        for (let j = 0; j < lanes; j++) {
          const n = nodes[i + j];
          const base = j * MSG_BYTES;
          let off = putZigzag(mem, base, n.height);
          off = putZigzag(mem, off, n.size);
          off = putZigzag(mem, off, n.version);
          mem[off++] = 32;
          off = this.putChildHash(n.left!, mem, off);
          mem[off++] = 32;
          off = this.putChildHash(n.right!, mem, off);
          // 69..83 bytes: always two SHA-256 blocks
          pad(mem, base, off - base, 2);
        }
        k.run(2);
        for (let j = 0; j < lanes; j++)
          nodes[i + j].hash = mem.slice(OUT_PTR + 32 * j, OUT_PTR + 32 * j + 32);
      }
    }
  }

  /**
   * Leaf hashes (SHA-256 of the value, then of the leaf preimage), four at a time among leaves whose
   * value and preimage take the same number of SHA-256 blocks (at most two); others go native.
   */
  private hashLeaves(k: Sha256x4, leaves: MemNode[]): void {
    const buckets = new Map<number, MemNode[]>();
    for (const n of leaves) {
      const vl = n.value!.length;
      const pl = 2 + uvarintLength(n.version * 2) + uvarintLength(n.key.length) + n.key.length + 33;
      if (vl > 119 || pl > 119) {
        this.hash(n);
        continue;
      }
      const b = (vl <= 55 ? 1 : 2) * 4 + (pl <= 55 ? 1 : 2);
      const list = buckets.get(b);
      if (list) list.push(n);
      else buckets.set(b, [n]);
    }
    const mem = k.mem;
    for (const [b, nodes] of buckets) {
      const vb = b >> 2;
      const pb = b & 3;
      for (let i = 0; i < nodes.length; i += 4) {
        const lanes = Math.min(4, nodes.length - i);
        for (let j = 0; j < lanes; j++) {
          const v = nodes[i + j].value!;
          mem.set(v, j * MSG_BYTES);
          pad(mem, j * MSG_BYTES, v.length, vb);
        }
        k.run(vb);
        valueHashes.set(mem.subarray(OUT_PTR, OUT_PTR + 128));
        for (let j = 0; j < lanes; j++) {
          const n = nodes[i + j];
          const base = j * MSG_BYTES;
          let off = putZigzag(mem, base, 0);
          off = putZigzag(mem, off, 1);
          off = putZigzag(mem, off, n.version);
          off = putUvarint(mem, off, n.key.length);
          mem.set(n.key, off);
          off += n.key.length;
          mem[off++] = 32;
          mem.set(valueHashes.subarray(32 * j, 32 * j + 32), off);
          pad(mem, base, off + 32 - base, pb);
        }
        k.run(pb);
        for (let j = 0; j < lanes; j++)
          nodes[i + j].hash = mem.slice(OUT_PTR + 32 * j, OUT_PTR + 32 * j + 32);
      }
    }
  }

  private putChildHash(c: NodeRef, out: Uint8Array, off: number): number {
    if (typeof c === 'number') this.snap!.copyHash(c, out, off);
    else out.set(c.hash!, off);
    return off + 32;
  }

  /**
   * innerHash() of a MemNode, copying snapshot children's hashes straight from their records (a
   * commit hashes ~10 nodes per changed key, each with one untouched sibling; this avoids a view
   * allocation per sibling). Dirty children are hashed first: the preimage buffer is shared.
   */
  private innerHashOf(n: MemNode): Uint8Array {
    const l = n.left!;
    const r = n.right!;
    const lh = typeof l === 'number' ? undefined : this.hash(l);
    const rh = typeof r === 'number' ? undefined : this.hash(r);
    if (lh && rh) return innerHash(n.height, n.size, n.version, lh, rh);
    const buf = room(128);
    let off = putZigzag(buf, 0, n.height);
    off = putZigzag(buf, off, n.size);
    off = putZigzag(buf, off, n.version);
    buf[off++] = 32;
    if (lh) buf.set(lh, off);
    else this.snap!.copyHash(l as number, buf, off);
    off += 32;
    buf[off++] = 32;
    if (rh) buf.set(rh, off);
    else this.snap!.copyHash(r as number, buf, off);
    return sha256(buf.subarray(0, off + 32));
  }

  /** A fresh MemNode copy of a branch carrying `version` (iavl's node.clone). */
  cloneBranch(r: NodeRef, version: number): MemNode {
    if (typeof r !== 'number')
      return new MemNode(r.height, r.size, version, r.key, undefined, r.left, r.right);
    const s = this.snap!;
    return new MemNode(
      s.branchHeight(r),
      s.branchSize(r),
      version,
      this.key(r),
      undefined,
      s.branchLeft(r),
      s.branchRight(r),
    );
  }
}
