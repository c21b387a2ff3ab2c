/**
 * Cosmos IAVL node hashing, byte for byte (test/fixtures/vectors/iavl.json):
 *   leaf  = SHA-256(zz(0) ‖ zz(1) ‖ zz(version) ‖ uvarint(len key) ‖ key ‖ uvarint(32) ‖ SHA-256(value))
 *   inner = SHA-256(zz(height) ‖ zz(size) ‖ zz(version) ‖ uvarint(32) ‖ left ‖ uvarint(32) ‖ right)
 * Preimages are built in one scratch buffer because these run once per dirty node per block and
 * allocation would dominate.
 */
import { putUvarint, putZigzag } from '../../../codec/varint.ts';
import { sha256 } from '../../../crypto/hash.ts';

let scratch = new Uint8Array(1024);

/** The shared preimage buffer (at least n bytes); valid until the next hashing call. */
export function room(n: number): Uint8Array {
  if (scratch.length < n) scratch = new Uint8Array(n * 2);
  return scratch;
}

export function leafHash(version: number, key: Uint8Array, value: Uint8Array): Uint8Array {
  return leafHashWithValueHash(version, key, sha256(value));
}

export function leafHashWithValueHash(version: number, key: Uint8Array, valueHash: Uint8Array): Uint8Array {
  const buf = room(key.length + 64);
  let off = putZigzag(buf, 0, 0);
  off = putZigzag(buf, off, 1);
  off = putZigzag(buf, off, version);
  off = putUvarint(buf, off, key.length);
  buf.set(key, off);
  off += key.length;
  off = putUvarint(buf, off, valueHash.length);
  buf.set(valueHash, off);
  return sha256(buf.subarray(0, off + valueHash.length));
}

export function innerHash(
  height: number,
  size: number,
  version: number,
  left: Uint8Array,
  right: Uint8Array,
): Uint8Array {
  const buf = room(128);
  let off = putZigzag(buf, 0, height);
  off = putZigzag(buf, off, size);
  off = putZigzag(buf, off, version);
  off = putUvarint(buf, off, left.length);
  buf.set(left, off);
  off += left.length;
  off = putUvarint(buf, off, right.length);
  buf.set(right, off);
  return sha256(buf.subarray(0, off + right.length));
}

/** The leaf preimage prefix ICS23 proofs carry: zz(0) ‖ zz(1) ‖ zz(version). */
export function leafPrefix(version: number): Uint8Array {
  const buf = new Uint8Array(16);
  let off = putZigzag(buf, 0, 0);
  off = putZigzag(buf, off, 1);
  off = putZigzag(buf, off, version);
  return buf.slice(0, off);
}
