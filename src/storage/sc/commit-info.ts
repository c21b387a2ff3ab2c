/**
 * The commit info and its hash, which is the app hash: for each store (name, root) a leaf
 * `uvarint(len name) ‖ name ‖ uvarint(32) ‖ SHA-256(root)`, sorted by name bytes, merged by the
 * RFC-6962 simple Merkle tree (leaf prefix 0x00, inner prefix 0x01, split at the largest power of two
 * below n). This is Cosmos `CommitInfo.Hash()`, which light clients verify with ICS23's
 * `tendermintSpec`, so the proof path produced here is that spec's inner-op form.
 */
import { compareBytes, concatBytes, utf8 } from '../../primitives/bytes.ts';
import { putUvarint } from '../../codec/varint.ts';
import { sha256 } from '../../crypto/hash.ts';

export interface StoreInfo {
  name: string;
  /** The store's root hash (IAVL root, or the flatkv lattice root for `evm_lattice`). */
  hash: Uint8Array;
}

export interface CommitInfo {
  version: number;
  /** Sorted by name. */
  stores: StoreInfo[];
}

const LEAF = Uint8Array.of(0);
const INNER = Uint8Array.of(1);

export function commitInfoLeafBytes(name: string, root: Uint8Array): Uint8Array {
  const n = utf8(name);
  const valueHash = sha256(root);
  const out = new Uint8Array(n.length + 10 + 1 + 32);
  let off = putUvarint(out, 0, n.length);
  out.set(n, off);
  off += n.length;
  off = putUvarint(out, off, valueHash.length);
  out.set(valueHash, off);
  return out.subarray(0, off + valueHash.length);
}

function sortStores(stores: StoreInfo[]): StoreInfo[] {
  return stores.slice().sort((a, b) => compareBytes(utf8(a.name), utf8(b.name)));
}

function leafHash(leaf: Uint8Array): Uint8Array {
  return sha256(concatBytes(LEAF, leaf));
}

function innerHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  return sha256(concatBytes(INNER, left, right));
}

/** Largest power of two strictly below n (n >= 2). */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

function merkleRoot(hashes: Uint8Array[]): Uint8Array {
  if (hashes.length === 0) return sha256(new Uint8Array(0));
  if (hashes.length === 1) return hashes[0];
  const k = splitPoint(hashes.length);
  return innerHash(merkleRoot(hashes.slice(0, k)), merkleRoot(hashes.slice(k)));
}

export function commitInfoHash(stores: StoreInfo[]): Uint8Array {
  return merkleRoot(sortStores(stores).map((s) => leafHash(commitInfoLeafBytes(s.name, s.hash))));
}

/** One step from a leaf towards the root: the sibling's hash and which side it is on. */
export interface SimpleProofStep {
  sibling: Uint8Array;
  siblingIsLeft: boolean;
}

/** The path (leaf upwards) proving store `name`'s root inside the commit info; undefined if absent. */
export function commitInfoProof(stores: StoreInfo[], name: string): SimpleProofStep[] | undefined {
  const sorted = sortStores(stores);
  const index = sorted.findIndex((s) => s.name === name);
  if (index < 0) return undefined;
  const hashes = sorted.map((s) => leafHash(commitInfoLeafBytes(s.name, s.hash)));
  const steps: SimpleProofStep[] = [];
  const walk = (items: Uint8Array[], i: number): void => {
    if (items.length <= 1) return;
    const k = splitPoint(items.length);
    if (i < k) {
      walk(items.slice(0, k), i);
      steps.push({ sibling: merkleRoot(items.slice(k)), siblingIsLeft: false });
    } else {
      walk(items.slice(k), i - k);
      steps.push({ sibling: merkleRoot(items.slice(0, k)), siblingIsLeft: true });
    }
  };
  walk(hashes, index);
  return steps;
}
