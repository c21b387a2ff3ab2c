/**
 * The IAVL tree: an immutable view per committed version (TreeView) and the working tree of the next
 * version (MutableTree). Set/remove/rebalance follow cosmos/iavl's MutableTree exactly, because the
 * tree's shape and the versions carried by its nodes are part of the hash: every node the algorithm
 * creates or clones (the changed path, and both nodes of each rotation) carries the working version;
 * a sibling promoted by a removal keeps its own.
 */
import { SHA256_EMPTY } from '../../../crypto/hash.ts';
import { compareBytes } from '../../../primitives/bytes.ts';
import { MemNode, NodeReader, type NodeRef } from './node.ts';
import { keyPrefix0, type TreeSnapshot } from './snapshot-file.ts';

/** A read-only version of one tree. Safe to keep while later versions are built. */
export class TreeView {
  readonly reader: NodeReader;
  readonly root: NodeRef | undefined;
  readonly version: number;

  constructor(reader: NodeReader, root: NodeRef | undefined, version: number) {
    this.reader = reader;
    this.root = root;
    this.version = version;
  }

  get snapshot(): TreeSnapshot | undefined {
    return this.reader.snap;
  }

  get size(): number {
    return this.root === undefined ? 0 : this.reader.size(this.root);
  }

  rootHash(): Uint8Array {
    return this.root === undefined ? SHA256_EMPTY : this.reader.hash(this.root);
  }

  get(key: Uint8Array): Uint8Array | undefined {
    if (this.root === undefined) return undefined;
    const rd = this.reader;
    let r = this.root;
    // iterative descent on the hot read path; MemNodes and snapshot records are walked alike
    for (;;) {
      if (typeof r === 'number') {
        const s = rd.snap!;
        if (r < 0) {
          const leaf = -r - 1;
          return s.compareLeafKey(key, leaf) === 0 ? s.leafValue(leaf) : undefined;
        }
        // below this point the subtree is one contiguous run of snapshot leaves
        const leaf = s.findInBranch(key, keyPrefix0(key), r);
        return leaf < 0 ? undefined : s.leafValue(leaf);
      } else {
        if (r.height === 0) return compareBytes(key, r.key) === 0 ? r.value : undefined;
        r = compareBytes(key, r.key) < 0 ? r.left! : r.right!;
      }
    }
  }

  /** Index of the first leaf with key >= `key`, and whether that leaf's key equals it. */
  indexOf(key: Uint8Array): { index: number; found: boolean } {
    if (this.root === undefined) return { index: 0, found: false };
    const rd = this.reader;
    rd.searchKey(key);
    let r = this.root;
    let index = 0;
    while (!rd.isLeaf(r)) {
      if (rd.compareKey(key, r) < 0) r = rd.left(r);
      else {
        index += rd.size(rd.left(r));
        r = rd.right(r);
      }
    }
    const c = rd.compareKey(key, r);
    if (c === 0) return { index, found: true };
    return { index: c < 0 ? index : index + 1, found: false };
  }

  /** The leaf at an index in key order. */
  leafAt(index: number): { key: Uint8Array; value: Uint8Array } | undefined {
    if (this.root === undefined || index < 0 || index >= this.size) return undefined;
    const rd = this.reader;
    let r = this.root;
    while (!rd.isLeaf(r)) {
      const ls = rd.size(rd.left(r));
      if (index < ls) r = rd.left(r);
      else {
        index -= ls;
        r = rd.right(r);
      }
    }
    return { key: rd.key(r), value: rd.value(r)! };
  }

  /** All leaves in key order. */
  *entries(): Generator<[Uint8Array, Uint8Array]> {
    for (const n of this.postOrder()) if (n.height === 0) yield [n.key, n.value!];
  }

  /**
   * Every node in post-order (left, right, self): the order of state-sync export items and of the
   * snapshot's branch records. Iterative so that a generator frame is not created per node.
   */
  *postOrder(): Generator<{
    ref: NodeRef;
    height: number;
    key: Uint8Array;
    value: Uint8Array | undefined;
    version: number;
  }> {
    if (this.root === undefined) return;
    const rd = this.reader;
    const stack: NodeRef[] = [this.root];
    const expanded: boolean[] = [false];
    while (stack.length > 0) {
      const top = stack.length - 1;
      const r = stack[top];
      if (rd.isLeaf(r) || expanded[top]) {
        stack.pop();
        expanded.pop();
        yield { ref: r, height: rd.height(r), key: rd.key(r), value: rd.value(r), version: rd.version(r) };
      } else {
        expanded[top] = true;
        stack.push(rd.right(r));
        expanded.push(false);
        stack.push(rd.left(r));
        expanded.push(false);
      }
    }
  }
}

/** The working tree of version `version + 1`, built on the last committed version. */
export class MutableTree {
  private reader: NodeReader;
  private root: NodeRef | undefined;
  private committedRoot: NodeRef | undefined;
  /** Last committed version. */
  version: number;

  constructor(snap?: TreeSnapshot, version = snap?.version ?? 0) {
    this.reader = new NodeReader(snap);
    this.root = snap && snap.meta.root !== null ? snap.meta.root : undefined;
    this.committedRoot = this.root;
    this.version = version;
  }

  /** Starts from an existing view (after an import or when switching to a new base snapshot). */
  static fromView(view: TreeView): MutableTree {
    const t = new MutableTree(undefined, view.version);
    t.reader = view.reader;
    t.root = t.committedRoot = view.root;
    return t;
  }

  get workingVersion(): number {
    return this.version + 1;
  }

  private committedView: TreeView | undefined;

  /** The last committed version as a view (cached: reads call this per lookup). */
  committed(): TreeView {
    const v = this.committedView;
    if (v && v.root === this.committedRoot && v.version === this.version && v.reader === this.reader)
      return v;
    return (this.committedView = new TreeView(this.reader, this.committedRoot, this.version));
  }

  /** The working state as a view (reads see uncommitted writes). */
  working(): TreeView {
    return new TreeView(this.reader, this.root, this.workingVersion);
  }

  get(key: Uint8Array): Uint8Array | undefined {
    return this.working().get(key);
  }

  workingHash(): Uint8Array {
    this.reader.hashDirty(this.root);
    return this.working().rootHash();
  }

  get dirty(): boolean {
    return this.root !== this.committedRoot;
  }

  /** Hashes the dirty nodes and makes the working version the committed one. */
  commit(): TreeView {
    this.workingHash();
    this.version++;
    this.committedRoot = this.root;
    return this.committed();
  }

  /** Drops uncommitted changes. */
  discardWorking(): void {
    this.root = this.committedRoot;
  }

  set(key: Uint8Array, value: Uint8Array): void {
    if (key.length === 0) throw new RangeError('IAVL keys must not be empty');
    const v = this.workingVersion;
    if (this.root === undefined) {
      this.root = newLeaf(key, value, v);
      return;
    }
    this.reader.searchKey(key);
    this.root = this.setRec(this.root, key, value, v);
  }

  /** Returns true if the key existed. */
  remove(key: Uint8Array): boolean {
    if (this.root === undefined) return false;
    this.reader.searchKey(key);
    const r = this.removeRec(this.root, key, this.workingVersion);
    if (!r.removed) return false;
    this.root = r.node;
    return true;
  }

  /** A node that may be changed in place: already new in this version, else a copy carrying it. */
  private mutable(r: NodeRef, v: number): MemNode {
    if (typeof r !== 'number' && r.version === v) {
      r.hash = undefined;
      return r;
    }
    return this.reader.cloneBranch(r, v);
  }

  /** Set by setRec: the key existed (an update changes no size or height, so no rebalancing above). */
  private updated = false;

  // returns the new subtree and reports through `updated` rather than a result object per level:
  // a 10k-key block descends ~20 levels per key
  private setRec(r: NodeRef, key: Uint8Array, value: Uint8Array, v: number): NodeRef {
    const rd = this.reader;
    if (rd.isLeaf(r)) {
      const c = rd.compareKey(key, r);
      this.updated = c === 0;
      if (c < 0) return new MemNode(1, 2, v, rd.key(r), undefined, newLeaf(key, value, v), r);
      if (c > 0) return new MemNode(1, 2, v, key, undefined, r, newLeaf(key, value, v));
      return newLeaf(key, value, v);
    }
    const n = this.mutable(r, v);
    if (compareBytes(key, n.key) < 0) n.left = this.setRec(n.left!, key, value, v);
    else n.right = this.setRec(n.right!, key, value, v);
    if (this.updated) return n;
    this.calc(n);
    return this.balance(n, v);
  }

  private removeRec(
    r: NodeRef,
    key: Uint8Array,
    v: number,
  ): { node: NodeRef | undefined; newKey: Uint8Array | undefined; removed: boolean } {
    const rd = this.reader;
    if (rd.isLeaf(r)) {
      return rd.compareKey(key, r) === 0
        ? { node: undefined, newKey: undefined, removed: true }
        : { node: r, newKey: undefined, removed: false };
    }
    if (rd.compareKey(key, r) < 0) {
      const res = this.removeRec(rd.left(r), key, v);
      if (!res.removed) return { node: r, newKey: undefined, removed: false };
      // the left leaf went away: its sibling takes the parent's place unchanged, and the parent's
      // key (the first key of the right subtree) becomes the new key of the nearest right-turn above
      if (res.node === undefined) return { node: rd.right(r), newKey: rd.key(r), removed: true };
      const n = this.mutable(r, v);
      n.left = res.node;
      this.calc(n);
      return { node: this.balance(n, v), newKey: res.newKey, removed: true };
    }
    const res = this.removeRec(rd.right(r), key, v);
    if (!res.removed) return { node: r, newKey: undefined, removed: false };
    if (res.node === undefined) return { node: rd.left(r), newKey: undefined, removed: true };
    const n = this.mutable(r, v);
    n.right = res.node;
    if (res.newKey !== undefined) n.key = res.newKey;
    this.calc(n);
    return { node: this.balance(n, v), newKey: undefined, removed: true };
  }

  private calc(n: MemNode): void {
    const rd = this.reader;
    const lh = rd.height(n.left!);
    const rh = rd.height(n.right!);
    n.height = (lh > rh ? lh : rh) + 1;
    n.size = rd.size(n.left!) + rd.size(n.right!);
  }

  private balanceOf(r: NodeRef): number {
    const rd = this.reader;
    return rd.height(rd.left(r)) - rd.height(rd.right(r));
  }

  private balance(n: MemNode, v: number): NodeRef {
    const b = this.balanceOf(n);
    if (b > 1) {
      if (this.balanceOf(n.left!) >= 0) return this.rotateRight(n, v);
      n.left = this.rotateLeft(n.left!, v);
      return this.rotateRight(n, v);
    }
    if (b < -1) {
      if (this.balanceOf(n.right!) <= 0) return this.rotateLeft(n, v);
      n.right = this.rotateRight(n.right!, v);
      return this.rotateLeft(n, v);
    }
    return n;
  }

  private rotateRight(r: NodeRef, v: number): MemNode {
    const node = this.mutable(r, v);
    const top = this.mutable(node.left!, v);
    node.left = top.right;
    top.right = node;
    this.calc(node);
    this.calc(top);
    return top;
  }

  private rotateLeft(r: NodeRef, v: number): MemNode {
    const node = this.mutable(r, v);
    const top = this.mutable(node.right!, v);
    node.right = top.left;
    top.left = node;
    this.calc(node);
    this.calc(top);
    return top;
  }
}

function newLeaf(key: Uint8Array, value: Uint8Array, version: number): MemNode {
  return new MemNode(0, 1, version, key, value, undefined, undefined);
}
