/**
 * Hash helpers. SHA-256 goes through node:crypto's one-shot `hash()` (the fastest per-call path
 * measured for the many small preimages of IAVL and Cosmos hashing). node:crypto has no BLAKE3, and
 * flatkv needs its extendable output (XOF): blake3-xof.ts computes it on an unrolled compression for
 * inputs of up to two chunks, and @noble/hashes for longer ones.
 */
import { hash as nodeHash } from 'node:crypto';
import { blake3Hash256, blake3XofFast } from './blake3-xof.ts';

const EMPTY = new Uint8Array(0);

export function sha256(data: Uint8Array): Uint8Array {
  const out = nodeHash('sha256', data, 'buffer') as Buffer;
  return new Uint8Array(out.buffer, out.byteOffset, out.length);
}

/** SHA-256 of the empty string: the root of an empty IAVL tree. */
export const SHA256_EMPTY: Uint8Array = sha256(EMPTY);

/** BLAKE3 read to `length` bytes of output (XOF); the single-chunk fast path is blake3-xof.ts. */
export function blake3Xof(data: Uint8Array, length: number): Uint8Array {
  return blake3XofFast(data, length);
}

export function blake3_256(data: Uint8Array): Uint8Array {
  return blake3Hash256(data);
}
