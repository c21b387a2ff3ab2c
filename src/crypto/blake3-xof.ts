/**
 * A specialised BLAKE3 XOF for inputs of one chunk (<= 1024 bytes): the flatkv lattice hash expands
 * every changed row to 2048 bytes (32 output blocks), which is its whole per-key cost. The compression
 * function is unrolled with the message schedule resolved at generation time and all state in locals,
 * about 3x faster than the generic path. Longer inputs (large contract code) go to @noble/hashes.
 * Cross-checked against @noble/hashes in test/unit/crypto.
 */
import { blake3 } from '@noble/hashes/blake3.js';

const IV = Uint32Array.of(
  0x6a09e667,
  0xbb67ae85,
  0x3c6ef372,
  0xa54ff53a,
  0x510e527f,
  0x9b05688c,
  0x1f83d9ab,
  0x5be0cd19,
);
const CHUNK_START = 1;
const CHUNK_END = 2;
const PARENT = 4;
const ROOT = 8;
const CHUNK_LEN = 1024;

// Word views below assume a little-endian host (every platform Node supports).
if (new Uint8Array(Uint32Array.of(1).buffer)[0] !== 1)
  throw new Error('blake3-xof needs a little-endian host');

/**
 * One compression. Writes the 8-word chaining value to out[off..off+8), and when `extended` also the
 * second half of the 64-byte output block (root output words 8..15). Generated code (rounds unrolled,
 * message schedule resolved), kept compact on purpose.
 */
// prettier-ignore
function compress(cv: Uint32Array, m: Uint32Array, counter: number, blockLen: number, flags: number, out: Uint32Array, off: number, extended: boolean): void {
  const m0 = m[0], m1 = m[1], m2 = m[2], m3 = m[3], m4 = m[4], m5 = m[5], m6 = m[6], m7 = m[7];
  const m8 = m[8], m9 = m[9], m10 = m[10], m11 = m[11], m12 = m[12], m13 = m[13], m14 = m[14], m15 = m[15];
  const c0 = cv[0], c1 = cv[1], c2 = cv[2], c3 = cv[3], c4 = cv[4], c5 = cv[5], c6 = cv[6], c7 = cv[7];
  let v0 = c0, v1 = c1, v2 = c2, v3 = c3, v4 = c4, v5 = c5, v6 = c6, v7 = c7;
  let v8 = IV[0], v9 = IV[1], v10 = IV[2], v11 = IV[3];
  let v12 = counter | 0, v13 = 0, v14 = blockLen, v15 = flags;
    // round 0
    v0 = (v0 + v4 + m0) | 0; v12 ^= v0; v12 = (v12 >>> 16) | (v12 << 16);
    v8 = (v8 + v12) | 0; v4 ^= v8; v4 = (v4 >>> 12) | (v4 << 20);
    v0 = (v0 + v4 + m1) | 0; v12 ^= v0; v12 = (v12 >>> 8) | (v12 << 24);
    v8 = (v8 + v12) | 0; v4 ^= v8; v4 = (v4 >>> 7) | (v4 << 25);
    v1 = (v1 + v5 + m2) | 0; v13 ^= v1; v13 = (v13 >>> 16) | (v13 << 16);
    v9 = (v9 + v13) | 0; v5 ^= v9; v5 = (v5 >>> 12) | (v5 << 20);
    v1 = (v1 + v5 + m3) | 0; v13 ^= v1; v13 = (v13 >>> 8) | (v13 << 24);
    v9 = (v9 + v13) | 0; v5 ^= v9; v5 = (v5 >>> 7) | (v5 << 25);
    v2 = (v2 + v6 + m4) | 0; v14 ^= v2; v14 = (v14 >>> 16) | (v14 << 16);
    v10 = (v10 + v14) | 0; v6 ^= v10; v6 = (v6 >>> 12) | (v6 << 20);
    v2 = (v2 + v6 + m5) | 0; v14 ^= v2; v14 = (v14 >>> 8) | (v14 << 24);
    v10 = (v10 + v14) | 0; v6 ^= v10; v6 = (v6 >>> 7) | (v6 << 25);
    v3 = (v3 + v7 + m6) | 0; v15 ^= v3; v15 = (v15 >>> 16) | (v15 << 16);
    v11 = (v11 + v15) | 0; v7 ^= v11; v7 = (v7 >>> 12) | (v7 << 20);
    v3 = (v3 + v7 + m7) | 0; v15 ^= v3; v15 = (v15 >>> 8) | (v15 << 24);
    v11 = (v11 + v15) | 0; v7 ^= v11; v7 = (v7 >>> 7) | (v7 << 25);
    v0 = (v0 + v5 + m8) | 0; v15 ^= v0; v15 = (v15 >>> 16) | (v15 << 16);
    v10 = (v10 + v15) | 0; v5 ^= v10; v5 = (v5 >>> 12) | (v5 << 20);
    v0 = (v0 + v5 + m9) | 0; v15 ^= v0; v15 = (v15 >>> 8) | (v15 << 24);
    v10 = (v10 + v15) | 0; v5 ^= v10; v5 = (v5 >>> 7) | (v5 << 25);
    v1 = (v1 + v6 + m10) | 0; v12 ^= v1; v12 = (v12 >>> 16) | (v12 << 16);
    v11 = (v11 + v12) | 0; v6 ^= v11; v6 = (v6 >>> 12) | (v6 << 20);
    v1 = (v1 + v6 + m11) | 0; v12 ^= v1; v12 = (v12 >>> 8) | (v12 << 24);
    v11 = (v11 + v12) | 0; v6 ^= v11; v6 = (v6 >>> 7) | (v6 << 25);
    v2 = (v2 + v7 + m12) | 0; v13 ^= v2; v13 = (v13 >>> 16) | (v13 << 16);
    v8 = (v8 + v13) | 0; v7 ^= v8; v7 = (v7 >>> 12) | (v7 << 20);
    v2 = (v2 + v7 + m13) | 0; v13 ^= v2; v13 = (v13 >>> 8) | (v13 << 24);
    v8 = (v8 + v13) | 0; v7 ^= v8; v7 = (v7 >>> 7) | (v7 << 25);
    v3 = (v3 + v4 + m14) | 0; v14 ^= v3; v14 = (v14 >>> 16) | (v14 << 16);
    v9 = (v9 + v14) | 0; v4 ^= v9; v4 = (v4 >>> 12) | (v4 << 20);
    v3 = (v3 + v4 + m15) | 0; v14 ^= v3; v14 = (v14 >>> 8) | (v14 << 24);
    v9 = (v9 + v14) | 0; v4 ^= v9; v4 = (v4 >>> 7) | (v4 << 25);
    // round 1
    v0 = (v0 + v4 + m2) | 0; v12 ^= v0; v12 = (v12 >>> 16) | (v12 << 16);
    v8 = (v8 + v12) | 0; v4 ^= v8; v4 = (v4 >>> 12) | (v4 << 20);
    v0 = (v0 + v4 + m6) | 0; v12 ^= v0; v12 = (v12 >>> 8) | (v12 << 24);
    v8 = (v8 + v12) | 0; v4 ^= v8; v4 = (v4 >>> 7) | (v4 << 25);
    v1 = (v1 + v5 + m3) | 0; v13 ^= v1; v13 = (v13 >>> 16) | (v13 << 16);
    v9 = (v9 + v13) | 0; v5 ^= v9; v5 = (v5 >>> 12) | (v5 << 20);
    v1 = (v1 + v5 + m10) | 0; v13 ^= v1; v13 = (v13 >>> 8) | (v13 << 24);
    v9 = (v9 + v13) | 0; v5 ^= v9; v5 = (v5 >>> 7) | (v5 << 25);
    v2 = (v2 + v6 + m7) | 0; v14 ^= v2; v14 = (v14 >>> 16) | (v14 << 16);
    v10 = (v10 + v14) | 0; v6 ^= v10; v6 = (v6 >>> 12) | (v6 << 20);
    v2 = (v2 + v6 + m0) | 0; v14 ^= v2; v14 = (v14 >>> 8) | (v14 << 24);
    v10 = (v10 + v14) | 0; v6 ^= v10; v6 = (v6 >>> 7) | (v6 << 25);
    v3 = (v3 + v7 + m4) | 0; v15 ^= v3; v15 = (v15 >>> 16) | (v15 << 16);
    v11 = (v11 + v15) | 0; v7 ^= v11; v7 = (v7 >>> 12) | (v7 << 20);
    v3 = (v3 + v7 + m13) | 0; v15 ^= v3; v15 = (v15 >>> 8) | (v15 << 24);
    v11 = (v11 + v15) | 0; v7 ^= v11; v7 = (v7 >>> 7) | (v7 << 25);
    v0 = (v0 + v5 + m1) | 0; v15 ^= v0; v15 = (v15 >>> 16) | (v15 << 16);
    v10 = (v10 + v15) | 0; v5 ^= v10; v5 = (v5 >>> 12) | (v5 << 20);
    v0 = (v0 + v5 + m11) | 0; v15 ^= v0; v15 = (v15 >>> 8) | (v15 << 24);
    v10 = (v10 + v15) | 0; v5 ^= v10; v5 = (v5 >>> 7) | (v5 << 25);
    v1 = (v1 + v6 + m12) | 0; v12 ^= v1; v12 = (v12 >>> 16) | (v12 << 16);
    v11 = (v11 + v12) | 0; v6 ^= v11; v6 = (v6 >>> 12) | (v6 << 20);
    v1 = (v1 + v6 + m5) | 0; v12 ^= v1; v12 = (v12 >>> 8) | (v12 << 24);
    v11 = (v11 + v12) | 0; v6 ^= v11; v6 = (v6 >>> 7) | (v6 << 25);
    v2 = (v2 + v7 + m9) | 0; v13 ^= v2; v13 = (v13 >>> 16) | (v13 << 16);
    v8 = (v8 + v13) | 0; v7 ^= v8; v7 = (v7 >>> 12) | (v7 << 20);
    v2 = (v2 + v7 + m14) | 0; v13 ^= v2; v13 = (v13 >>> 8) | (v13 << 24);
    v8 = (v8 + v13) | 0; v7 ^= v8; v7 = (v7 >>> 7) | (v7 << 25);
    v3 = (v3 + v4 + m15) | 0; v14 ^= v3; v14 = (v14 >>> 16) | (v14 << 16);
    v9 = (v9 + v14) | 0; v4 ^= v9; v4 = (v4 >>> 12) | (v4 << 20);
    v3 = (v3 + v4 + m8) | 0; v14 ^= v3; v14 = (v14 >>> 8) | (v14 << 24);
    v9 = (v9 + v14) | 0; v4 ^= v9; v4 = (v4 >>> 7) | (v4 << 25);
    // round 2
    v0 = (v0 + v4 + m3) | 0; v12 ^= v0; v12 = (v12 >>> 16) | (v12 << 16);
    v8 = (v8 + v12) | 0; v4 ^= v8; v4 = (v4 >>> 12) | (v4 << 20);
    v0 = (v0 + v4 + m4) | 0; v12 ^= v0; v12 = (v12 >>> 8) | (v12 << 24);
    v8 = (v8 + v12) | 0; v4 ^= v8; v4 = (v4 >>> 7) | (v4 << 25);
    v1 = (v1 + v5 + m10) | 0; v13 ^= v1; v13 = (v13 >>> 16) | (v13 << 16);
    v9 = (v9 + v13) | 0; v5 ^= v9; v5 = (v5 >>> 12) | (v5 << 20);
    v1 = (v1 + v5 + m12) | 0; v13 ^= v1; v13 = (v13 >>> 8) | (v13 << 24);
    v9 = (v9 + v13) | 0; v5 ^= v9; v5 = (v5 >>> 7) | (v5 << 25);
    v2 = (v2 + v6 + m13) | 0; v14 ^= v2; v14 = (v14 >>> 16) | (v14 << 16);
    v10 = (v10 + v14) | 0; v6 ^= v10; v6 = (v6 >>> 12) | (v6 << 20);
    v2 = (v2 + v6 + m2) | 0; v14 ^= v2; v14 = (v14 >>> 8) | (v14 << 24);
    v10 = (v10 + v14) | 0; v6 ^= v10; v6 = (v6 >>> 7) | (v6 << 25);
    v3 = (v3 + v7 + m7) | 0; v15 ^= v3; v15 = (v15 >>> 16) | (v15 << 16);
    v11 = (v11 + v15) | 0; v7 ^= v11; v7 = (v7 >>> 12) | (v7 << 20);
    v3 = (v3 + v7 + m14) | 0; v15 ^= v3; v15 = (v15 >>> 8) | (v15 << 24);
    v11 = (v11 + v15) | 0; v7 ^= v11; v7 = (v7 >>> 7) | (v7 << 25);
    v0 = (v0 + v5 + m6) | 0; v15 ^= v0; v15 = (v15 >>> 16) | (v15 << 16);
    v10 = (v10 + v15) | 0; v5 ^= v10; v5 = (v5 >>> 12) | (v5 << 20);
    v0 = (v0 + v5 + m5) | 0; v15 ^= v0; v15 = (v15 >>> 8) | (v15 << 24);
    v10 = (v10 + v15) | 0; v5 ^= v10; v5 = (v5 >>> 7) | (v5 << 25);
    v1 = (v1 + v6 + m9) | 0; v12 ^= v1; v12 = (v12 >>> 16) | (v12 << 16);
    v11 = (v11 + v12) | 0; v6 ^= v11; v6 = (v6 >>> 12) | (v6 << 20);
    v1 = (v1 + v6 + m0) | 0; v12 ^= v1; v12 = (v12 >>> 8) | (v12 << 24);
    v11 = (v11 + v12) | 0; v6 ^= v11; v6 = (v6 >>> 7) | (v6 << 25);
    v2 = (v2 + v7 + m11) | 0; v13 ^= v2; v13 = (v13 >>> 16) | (v13 << 16);
    v8 = (v8 + v13) | 0; v7 ^= v8; v7 = (v7 >>> 12) | (v7 << 20);
    v2 = (v2 + v7 + m15) | 0; v13 ^= v2; v13 = (v13 >>> 8) | (v13 << 24);
    v8 = (v8 + v13) | 0; v7 ^= v8; v7 = (v7 >>> 7) | (v7 << 25);
    v3 = (v3 + v4 + m8) | 0; v14 ^= v3; v14 = (v14 >>> 16) | (v14 << 16);
    v9 = (v9 + v14) | 0; v4 ^= v9; v4 = (v4 >>> 12) | (v4 << 20);
    v3 = (v3 + v4 + m1) | 0; v14 ^= v3; v14 = (v14 >>> 8) | (v14 << 24);
    v9 = (v9 + v14) | 0; v4 ^= v9; v4 = (v4 >>> 7) | (v4 << 25);
    // round 3
    v0 = (v0 + v4 + m10) | 0; v12 ^= v0; v12 = (v12 >>> 16) | (v12 << 16);
    v8 = (v8 + v12) | 0; v4 ^= v8; v4 = (v4 >>> 12) | (v4 << 20);
    v0 = (v0 + v4 + m7) | 0; v12 ^= v0; v12 = (v12 >>> 8) | (v12 << 24);
    v8 = (v8 + v12) | 0; v4 ^= v8; v4 = (v4 >>> 7) | (v4 << 25);
    v1 = (v1 + v5 + m12) | 0; v13 ^= v1; v13 = (v13 >>> 16) | (v13 << 16);
    v9 = (v9 + v13) | 0; v5 ^= v9; v5 = (v5 >>> 12) | (v5 << 20);
    v1 = (v1 + v5 + m9) | 0; v13 ^= v1; v13 = (v13 >>> 8) | (v13 << 24);
    v9 = (v9 + v13) | 0; v5 ^= v9; v5 = (v5 >>> 7) | (v5 << 25);
    v2 = (v2 + v6 + m14) | 0; v14 ^= v2; v14 = (v14 >>> 16) | (v14 << 16);
    v10 = (v10 + v14) | 0; v6 ^= v10; v6 = (v6 >>> 12) | (v6 << 20);
    v2 = (v2 + v6 + m3) | 0; v14 ^= v2; v14 = (v14 >>> 8) | (v14 << 24);
    v10 = (v10 + v14) | 0; v6 ^= v10; v6 = (v6 >>> 7) | (v6 << 25);
    v3 = (v3 + v7 + m13) | 0; v15 ^= v3; v15 = (v15 >>> 16) | (v15 << 16);
    v11 = (v11 + v15) | 0; v7 ^= v11; v7 = (v7 >>> 12) | (v7 << 20);
    v3 = (v3 + v7 + m15) | 0; v15 ^= v3; v15 = (v15 >>> 8) | (v15 << 24);
    v11 = (v11 + v15) | 0; v7 ^= v11; v7 = (v7 >>> 7) | (v7 << 25);
    v0 = (v0 + v5 + m4) | 0; v15 ^= v0; v15 = (v15 >>> 16) | (v15 << 16);
    v10 = (v10 + v15) | 0; v5 ^= v10; v5 = (v5 >>> 12) | (v5 << 20);
    v0 = (v0 + v5 + m0) | 0; v15 ^= v0; v15 = (v15 >>> 8) | (v15 << 24);
    v10 = (v10 + v15) | 0; v5 ^= v10; v5 = (v5 >>> 7) | (v5 << 25);
    v1 = (v1 + v6 + m11) | 0; v12 ^= v1; v12 = (v12 >>> 16) | (v12 << 16);
    v11 = (v11 + v12) | 0; v6 ^= v11; v6 = (v6 >>> 12) | (v6 << 20);
    v1 = (v1 + v6 + m2) | 0; v12 ^= v1; v12 = (v12 >>> 8) | (v12 << 24);
    v11 = (v11 + v12) | 0; v6 ^= v11; v6 = (v6 >>> 7) | (v6 << 25);
    v2 = (v2 + v7 + m5) | 0; v13 ^= v2; v13 = (v13 >>> 16) | (v13 << 16);
    v8 = (v8 + v13) | 0; v7 ^= v8; v7 = (v7 >>> 12) | (v7 << 20);
    v2 = (v2 + v7 + m8) | 0; v13 ^= v2; v13 = (v13 >>> 8) | (v13 << 24);
    v8 = (v8 + v13) | 0; v7 ^= v8; v7 = (v7 >>> 7) | (v7 << 25);
    v3 = (v3 + v4 + m1) | 0; v14 ^= v3; v14 = (v14 >>> 16) | (v14 << 16);
    v9 = (v9 + v14) | 0; v4 ^= v9; v4 = (v4 >>> 12) | (v4 << 20);
    v3 = (v3 + v4 + m6) | 0; v14 ^= v3; v14 = (v14 >>> 8) | (v14 << 24);
    v9 = (v9 + v14) | 0; v4 ^= v9; v4 = (v4 >>> 7) | (v4 << 25);
    // round 4
    v0 = (v0 + v4 + m12) | 0; v12 ^= v0; v12 = (v12 >>> 16) | (v12 << 16);
    v8 = (v8 + v12) | 0; v4 ^= v8; v4 = (v4 >>> 12) | (v4 << 20);
    v0 = (v0 + v4 + m13) | 0; v12 ^= v0; v12 = (v12 >>> 8) | (v12 << 24);
    v8 = (v8 + v12) | 0; v4 ^= v8; v4 = (v4 >>> 7) | (v4 << 25);
    v1 = (v1 + v5 + m9) | 0; v13 ^= v1; v13 = (v13 >>> 16) | (v13 << 16);
    v9 = (v9 + v13) | 0; v5 ^= v9; v5 = (v5 >>> 12) | (v5 << 20);
    v1 = (v1 + v5 + m11) | 0; v13 ^= v1; v13 = (v13 >>> 8) | (v13 << 24);
    v9 = (v9 + v13) | 0; v5 ^= v9; v5 = (v5 >>> 7) | (v5 << 25);
    v2 = (v2 + v6 + m15) | 0; v14 ^= v2; v14 = (v14 >>> 16) | (v14 << 16);
    v10 = (v10 + v14) | 0; v6 ^= v10; v6 = (v6 >>> 12) | (v6 << 20);
    v2 = (v2 + v6 + m10) | 0; v14 ^= v2; v14 = (v14 >>> 8) | (v14 << 24);
    v10 = (v10 + v14) | 0; v6 ^= v10; v6 = (v6 >>> 7) | (v6 << 25);
    v3 = (v3 + v7 + m14) | 0; v15 ^= v3; v15 = (v15 >>> 16) | (v15 << 16);
    v11 = (v11 + v15) | 0; v7 ^= v11; v7 = (v7 >>> 12) | (v7 << 20);
    v3 = (v3 + v7 + m8) | 0; v15 ^= v3; v15 = (v15 >>> 8) | (v15 << 24);
    v11 = (v11 + v15) | 0; v7 ^= v11; v7 = (v7 >>> 7) | (v7 << 25);
    v0 = (v0 + v5 + m7) | 0; v15 ^= v0; v15 = (v15 >>> 16) | (v15 << 16);
    v10 = (v10 + v15) | 0; v5 ^= v10; v5 = (v5 >>> 12) | (v5 << 20);
    v0 = (v0 + v5 + m2) | 0; v15 ^= v0; v15 = (v15 >>> 8) | (v15 << 24);
    v10 = (v10 + v15) | 0; v5 ^= v10; v5 = (v5 >>> 7) | (v5 << 25);
    v1 = (v1 + v6 + m5) | 0; v12 ^= v1; v12 = (v12 >>> 16) | (v12 << 16);
    v11 = (v11 + v12) | 0; v6 ^= v11; v6 = (v6 >>> 12) | (v6 << 20);
    v1 = (v1 + v6 + m3) | 0; v12 ^= v1; v12 = (v12 >>> 8) | (v12 << 24);
    v11 = (v11 + v12) | 0; v6 ^= v11; v6 = (v6 >>> 7) | (v6 << 25);
    v2 = (v2 + v7 + m0) | 0; v13 ^= v2; v13 = (v13 >>> 16) | (v13 << 16);
    v8 = (v8 + v13) | 0; v7 ^= v8; v7 = (v7 >>> 12) | (v7 << 20);
    v2 = (v2 + v7 + m1) | 0; v13 ^= v2; v13 = (v13 >>> 8) | (v13 << 24);
    v8 = (v8 + v13) | 0; v7 ^= v8; v7 = (v7 >>> 7) | (v7 << 25);
    v3 = (v3 + v4 + m6) | 0; v14 ^= v3; v14 = (v14 >>> 16) | (v14 << 16);
    v9 = (v9 + v14) | 0; v4 ^= v9; v4 = (v4 >>> 12) | (v4 << 20);
    v3 = (v3 + v4 + m4) | 0; v14 ^= v3; v14 = (v14 >>> 8) | (v14 << 24);
    v9 = (v9 + v14) | 0; v4 ^= v9; v4 = (v4 >>> 7) | (v4 << 25);
    // round 5
    v0 = (v0 + v4 + m9) | 0; v12 ^= v0; v12 = (v12 >>> 16) | (v12 << 16);
    v8 = (v8 + v12) | 0; v4 ^= v8; v4 = (v4 >>> 12) | (v4 << 20);
    v0 = (v0 + v4 + m14) | 0; v12 ^= v0; v12 = (v12 >>> 8) | (v12 << 24);
    v8 = (v8 + v12) | 0; v4 ^= v8; v4 = (v4 >>> 7) | (v4 << 25);
    v1 = (v1 + v5 + m11) | 0; v13 ^= v1; v13 = (v13 >>> 16) | (v13 << 16);
    v9 = (v9 + v13) | 0; v5 ^= v9; v5 = (v5 >>> 12) | (v5 << 20);
    v1 = (v1 + v5 + m5) | 0; v13 ^= v1; v13 = (v13 >>> 8) | (v13 << 24);
    v9 = (v9 + v13) | 0; v5 ^= v9; v5 = (v5 >>> 7) | (v5 << 25);
    v2 = (v2 + v6 + m8) | 0; v14 ^= v2; v14 = (v14 >>> 16) | (v14 << 16);
    v10 = (v10 + v14) | 0; v6 ^= v10; v6 = (v6 >>> 12) | (v6 << 20);
    v2 = (v2 + v6 + m12) | 0; v14 ^= v2; v14 = (v14 >>> 8) | (v14 << 24);
    v10 = (v10 + v14) | 0; v6 ^= v10; v6 = (v6 >>> 7) | (v6 << 25);
    v3 = (v3 + v7 + m15) | 0; v15 ^= v3; v15 = (v15 >>> 16) | (v15 << 16);
    v11 = (v11 + v15) | 0; v7 ^= v11; v7 = (v7 >>> 12) | (v7 << 20);
    v3 = (v3 + v7 + m1) | 0; v15 ^= v3; v15 = (v15 >>> 8) | (v15 << 24);
    v11 = (v11 + v15) | 0; v7 ^= v11; v7 = (v7 >>> 7) | (v7 << 25);
    v0 = (v0 + v5 + m13) | 0; v15 ^= v0; v15 = (v15 >>> 16) | (v15 << 16);
    v10 = (v10 + v15) | 0; v5 ^= v10; v5 = (v5 >>> 12) | (v5 << 20);
    v0 = (v0 + v5 + m3) | 0; v15 ^= v0; v15 = (v15 >>> 8) | (v15 << 24);
    v10 = (v10 + v15) | 0; v5 ^= v10; v5 = (v5 >>> 7) | (v5 << 25);
    v1 = (v1 + v6 + m0) | 0; v12 ^= v1; v12 = (v12 >>> 16) | (v12 << 16);
    v11 = (v11 + v12) | 0; v6 ^= v11; v6 = (v6 >>> 12) | (v6 << 20);
    v1 = (v1 + v6 + m10) | 0; v12 ^= v1; v12 = (v12 >>> 8) | (v12 << 24);
    v11 = (v11 + v12) | 0; v6 ^= v11; v6 = (v6 >>> 7) | (v6 << 25);
    v2 = (v2 + v7 + m2) | 0; v13 ^= v2; v13 = (v13 >>> 16) | (v13 << 16);
    v8 = (v8 + v13) | 0; v7 ^= v8; v7 = (v7 >>> 12) | (v7 << 20);
    v2 = (v2 + v7 + m6) | 0; v13 ^= v2; v13 = (v13 >>> 8) | (v13 << 24);
    v8 = (v8 + v13) | 0; v7 ^= v8; v7 = (v7 >>> 7) | (v7 << 25);
    v3 = (v3 + v4 + m4) | 0; v14 ^= v3; v14 = (v14 >>> 16) | (v14 << 16);
    v9 = (v9 + v14) | 0; v4 ^= v9; v4 = (v4 >>> 12) | (v4 << 20);
    v3 = (v3 + v4 + m7) | 0; v14 ^= v3; v14 = (v14 >>> 8) | (v14 << 24);
    v9 = (v9 + v14) | 0; v4 ^= v9; v4 = (v4 >>> 7) | (v4 << 25);
    // round 6
    v0 = (v0 + v4 + m11) | 0; v12 ^= v0; v12 = (v12 >>> 16) | (v12 << 16);
    v8 = (v8 + v12) | 0; v4 ^= v8; v4 = (v4 >>> 12) | (v4 << 20);
    v0 = (v0 + v4 + m15) | 0; v12 ^= v0; v12 = (v12 >>> 8) | (v12 << 24);
    v8 = (v8 + v12) | 0; v4 ^= v8; v4 = (v4 >>> 7) | (v4 << 25);
    v1 = (v1 + v5 + m5) | 0; v13 ^= v1; v13 = (v13 >>> 16) | (v13 << 16);
    v9 = (v9 + v13) | 0; v5 ^= v9; v5 = (v5 >>> 12) | (v5 << 20);
    v1 = (v1 + v5 + m0) | 0; v13 ^= v1; v13 = (v13 >>> 8) | (v13 << 24);
    v9 = (v9 + v13) | 0; v5 ^= v9; v5 = (v5 >>> 7) | (v5 << 25);
    v2 = (v2 + v6 + m1) | 0; v14 ^= v2; v14 = (v14 >>> 16) | (v14 << 16);
    v10 = (v10 + v14) | 0; v6 ^= v10; v6 = (v6 >>> 12) | (v6 << 20);
    v2 = (v2 + v6 + m9) | 0; v14 ^= v2; v14 = (v14 >>> 8) | (v14 << 24);
    v10 = (v10 + v14) | 0; v6 ^= v10; v6 = (v6 >>> 7) | (v6 << 25);
    v3 = (v3 + v7 + m8) | 0; v15 ^= v3; v15 = (v15 >>> 16) | (v15 << 16);
    v11 = (v11 + v15) | 0; v7 ^= v11; v7 = (v7 >>> 12) | (v7 << 20);
    v3 = (v3 + v7 + m6) | 0; v15 ^= v3; v15 = (v15 >>> 8) | (v15 << 24);
    v11 = (v11 + v15) | 0; v7 ^= v11; v7 = (v7 >>> 7) | (v7 << 25);
    v0 = (v0 + v5 + m14) | 0; v15 ^= v0; v15 = (v15 >>> 16) | (v15 << 16);
    v10 = (v10 + v15) | 0; v5 ^= v10; v5 = (v5 >>> 12) | (v5 << 20);
    v0 = (v0 + v5 + m10) | 0; v15 ^= v0; v15 = (v15 >>> 8) | (v15 << 24);
    v10 = (v10 + v15) | 0; v5 ^= v10; v5 = (v5 >>> 7) | (v5 << 25);
    v1 = (v1 + v6 + m2) | 0; v12 ^= v1; v12 = (v12 >>> 16) | (v12 << 16);
    v11 = (v11 + v12) | 0; v6 ^= v11; v6 = (v6 >>> 12) | (v6 << 20);
    v1 = (v1 + v6 + m12) | 0; v12 ^= v1; v12 = (v12 >>> 8) | (v12 << 24);
    v11 = (v11 + v12) | 0; v6 ^= v11; v6 = (v6 >>> 7) | (v6 << 25);
    v2 = (v2 + v7 + m3) | 0; v13 ^= v2; v13 = (v13 >>> 16) | (v13 << 16);
    v8 = (v8 + v13) | 0; v7 ^= v8; v7 = (v7 >>> 12) | (v7 << 20);
    v2 = (v2 + v7 + m4) | 0; v13 ^= v2; v13 = (v13 >>> 8) | (v13 << 24);
    v8 = (v8 + v13) | 0; v7 ^= v8; v7 = (v7 >>> 7) | (v7 << 25);
    v3 = (v3 + v4 + m7) | 0; v14 ^= v3; v14 = (v14 >>> 16) | (v14 << 16);
    v9 = (v9 + v14) | 0; v4 ^= v9; v4 = (v4 >>> 12) | (v4 << 20);
    v3 = (v3 + v4 + m13) | 0; v14 ^= v3; v14 = (v14 >>> 8) | (v14 << 24);
    v9 = (v9 + v14) | 0; v4 ^= v9; v4 = (v4 >>> 7) | (v4 << 25);

  out[off] = v0 ^ v8; out[off + 1] = v1 ^ v9; out[off + 2] = v2 ^ v10; out[off + 3] = v3 ^ v11;
  out[off + 4] = v4 ^ v12; out[off + 5] = v5 ^ v13; out[off + 6] = v6 ^ v14; out[off + 7] = v7 ^ v15;
  if (extended) {
    out[off + 8] = v8 ^ c0; out[off + 9] = v9 ^ c1; out[off + 10] = v10 ^ c2; out[off + 11] = v11 ^ c3;
    out[off + 12] = v12 ^ c4; out[off + 13] = v13 ^ c5; out[off + 14] = v14 ^ c6; out[off + 15] = v15 ^ c7;
  }
}

const block = new Uint8Array(64);
const block32 = new Uint32Array(block.buffer);
const cv = new Uint32Array(8);

/**
 * BLAKE3(input) read to `out.length * 4` bytes, written into `out` (a multiple of 16 words): no
 * allocation, for callers that consume the output at once (the lattice hash).
 */
export function blake3XofInto(input: Uint8Array, out: Uint32Array): void {
  if (input.length > CHUNK_LEN) {
    const bytes = blake3(input, { dkLen: out.length * 4 });
    out.set(new Uint32Array(bytes.buffer, bytes.byteOffset, out.length));
    return;
  }
  const lastLen = chunkUpToLastBlock(input, 0);
  const flags = lastBlockFlags(input) | ROOT;
  const outBlocks = out.length >>> 4;
  for (let t = 0; t < outBlocks; t++) compress(cv, block32, t, lastLen, flags, out, t * 16, true);
}

/** BLAKE3(input) read to `length` bytes (unkeyed hash mode, XOF). */
export function blake3XofFast(input: Uint8Array, length: number): Uint8Array {
  if (input.length > CHUNK_LEN) return blake3(input, { dkLen: length });
  const out = new Uint32Array(Math.ceil(length / 64) * 16);
  blake3XofInto(input, out);
  const bytes = new Uint8Array(out.buffer);
  return length === bytes.length ? bytes : bytes.slice(0, length);
}

const chunkCvs = new Uint32Array(16);
const digest = new Uint32Array(8);

/**
 * Compresses every block of one chunk (0..1024 bytes of `input`, chunk index `counter`) but its last
 * into `cv`, and leaves the last one, zero-padded, in `block`; returns its length. What it still needs
 * is its compression with `lastBlockFlags` (and ROOT for a root chunk).
 */
function chunkUpToLastBlock(input: Uint8Array, counter: number): number {
  cv.set(IV);
  const blocks = Math.max(1, Math.ceil(input.length / 64));
  let flags = CHUNK_START;
  for (let b = 0; b < blocks - 1; b++) {
    block.set(input.subarray(b * 64, b * 64 + 64));
    compress(cv, block32, counter, 64, flags, cv, 0, false);
    flags = 0;
  }
  block.fill(0);
  block.set(input.subarray((blocks - 1) * 64));
  return input.length - (blocks - 1) * 64;
}

/** The flags of a chunk's last block: it is also the first when the chunk has one block. */
function lastBlockFlags(input: Uint8Array): number {
  return input.length <= 64 ? CHUNK_START | CHUNK_END : CHUNK_END;
}

/** The chaining value of one non-root chunk of `input` at chunk index `counter`, into out[off..off+8). */
function chunkCv(input: Uint8Array, counter: number, out: Uint32Array, off: number): void {
  const lastLen = chunkUpToLastBlock(input, counter);
  compress(cv, block32, counter, lastLen, lastBlockFlags(input), out, off, false);
}

/**
 * BLAKE3-256 (unkeyed hash mode) of up to two chunks (2048 bytes) on the unrolled compression: the
 * flatkv store root hashes a 2048-byte lattice every block, which @noble/hashes' generic path took
 * ~8x as long for (37 µs against 4.7 µs, `npm run bench -- hash`), leaving ~150 KB of garbage per
 * block. Longer inputs go to @noble/hashes.
 */
export function blake3Hash256(input: Uint8Array): Uint8Array {
  if (input.length <= CHUNK_LEN) return blake3XofFast(input, 32);
  if (input.length > 2 * CHUNK_LEN) return blake3(input);
  chunkCv(input.subarray(0, CHUNK_LEN), 0, chunkCvs, 0);
  chunkCv(input.subarray(CHUNK_LEN), 1, chunkCvs, 8);
  compress(IV, chunkCvs, 0, 64, PARENT | ROOT, digest, 0, false);
  return new Uint8Array(digest.slice().buffer);
}
