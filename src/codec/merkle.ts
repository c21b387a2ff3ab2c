/**
 * CometBFT's simple Merkle tree (RFC-6962): leaf = SHA-256(0x00 ‖ item), inner = SHA-256(0x01 ‖ left
 * ‖ right), the items split at the largest power of two strictly below n, and the root of zero items
 * is SHA-256 of nothing. Used for header, data, validator-set and commit hashes.
 *
 * storage/sc/commit-info.ts has its own copy of this tree (with proof paths) because storage/sc may
 * not be imported from codec/ and predates this file; both are checked against shared vectors.
 */
import { sha256 } from '../crypto/hash.ts';

const EMPTY = new Uint8Array(0);

export function merkleLeafHash(item: Uint8Array): Uint8Array {
  const pre = new Uint8Array(1 + item.length);
  pre.set(item, 1);
  return sha256(pre);
}

export function merkleInnerHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  const pre = new Uint8Array(1 + left.length + right.length);
  pre[0] = 1;
  pre.set(left, 1);
  pre.set(right, 1 + left.length);
  return sha256(pre);
}

/** Largest power of two strictly below n (n >= 2). */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

function rootOfLeaves(leaves: Uint8Array[], from: number, to: number): Uint8Array {
  const n = to - from;
  if (n === 1) return leaves[from];
  const k = splitPoint(n);
  return merkleInnerHash(rootOfLeaves(leaves, from, from + k), rootOfLeaves(leaves, from + k, to));
}

/** Root over raw items (each is leaf-hashed first): Go `merkle.HashFromByteSlices`. */
export function merkleRoot(items: Uint8Array[]): Uint8Array {
  if (items.length === 0) return sha256(EMPTY);
  return rootOfLeaves(items.map(merkleLeafHash), 0, items.length);
}

/** SHA-256 of nothing: the root of an empty list (empty data, evidence, commit). */
export const EMPTY_MERKLE_ROOT: Uint8Array = sha256(EMPTY);
