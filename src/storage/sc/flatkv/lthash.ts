/**
 * The homomorphic lattice hash of flatkv (docs/adr/0004-flatkv-lattice-hash.md): a vector of 1024 uint16 limbs with element-wise
 * arithmetic mod 2^16. A row (k, v) contributes the BLAKE3-XOF expansion (2048 bytes, read as
 * little-endian uint16 limbs) of `u32le(len k) ‖ k ‖ u32le(len v) ‖ v`; insert adds, delete or
 * overwrite subtracts the old row. Being a sum, the hash of a table is independent of write order and
 * can be updated in O(changed rows) per block, which is why flatkv commits are cheap.
 */
import { blake3Xof, blake3_256 } from '../../../crypto/hash.ts';
import { blake3XofInto } from '../../../crypto/blake3-xof.ts';

export const LTHASH_LIMBS = 1024;
export const LTHASH_BYTES = LTHASH_LIMBS * 2;

/** The row's contribution as limbs; undefined for an empty key or value (they contribute nothing). */
export function rowLimbs(key: Uint8Array, value: Uint8Array): Uint16Array | undefined {
  if (key.length === 0 || value.length === 0) return undefined;
  const pre = new Uint8Array(8 + key.length + value.length);
  const dv = new DataView(pre.buffer);
  dv.setUint32(0, key.length, true);
  pre.set(key, 4);
  dv.setUint32(4 + key.length, value.length, true);
  pre.set(value, 8 + key.length);
  const out = blake3Xof(pre, LTHASH_BYTES);
  return limbsOf(out);
}

function limbsOf(bytes: Uint8Array): Uint16Array {
  // Uint16Array uses platform byte order; every platform Node supports is little-endian, and the
  // check below keeps a big-endian port from silently producing a different hash.
  if (!LITTLE_ENDIAN) {
    const limbs = new Uint16Array(LTHASH_LIMBS);
    for (let i = 0; i < LTHASH_LIMBS; i++) limbs[i] = bytes[2 * i] | (bytes[2 * i + 1] << 8);
    return limbs;
  }
  return new Uint16Array(bytes.buffer, bytes.byteOffset, LTHASH_LIMBS);
}

const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

// Scratch for the per-row path: rows are mixed in one at a time, so one preimage buffer and one
// output buffer serve every call without allocation.
let pre = new Uint8Array(256);
const rowOut = new Uint32Array(LTHASH_BYTES / 4);
const H = 0x80008000;
const L = 0x7fff7fff;

/** Length of a row's hash input (see writeRowPreimage). */
export const rowPreimageLength = (key: Uint8Array, value: Uint8Array): number =>
  8 + key.length + value.length;

/**
 * Writes a row's hash input, u32le(len key) ‖ key ‖ u32le(len value) ‖ value, at the start of `buf`
 * (at least rowPreimageLength long). Consensus critical: the scalar and SIMD lattice paths both
 * hash exactly these bytes.
 */
export function writeRowPreimage(buf: Uint8Array, key: Uint8Array, value: Uint8Array): void {
  const k = key.length;
  const v = value.length;
  buf[0] = k;
  buf[1] = k >>> 8;
  buf[2] = k >>> 16;
  buf[3] = k >>> 24;
  buf.set(key, 4);
  buf[4 + k] = v;
  buf[5 + k] = v >>> 8;
  buf[6 + k] = v >>> 16;
  buf[7 + k] = v >>> 24;
  buf.set(value, 8 + k);
}

function rowInto(key: Uint8Array, value: Uint8Array): boolean {
  if (key.length === 0 || value.length === 0) return false;
  const n = rowPreimageLength(key, value);
  if (pre.length < n) pre = new Uint8Array(n * 2);
  writeRowPreimage(pre, key, value);
  blake3XofInto(pre.subarray(0, n), rowOut);
  return true;
}

export class LtHash {
  readonly limbs: Uint16Array;
  /** The same limbs as 512 words of two lanes each, for SWAR add/subtract. */
  private readonly words: Uint32Array;

  constructor(limbs?: Uint16Array) {
    this.limbs = limbs ? limbs.slice() : new Uint16Array(LTHASH_LIMBS);
    this.words = new Uint32Array(this.limbs.buffer, this.limbs.byteOffset, LTHASH_LIMBS / 2);
  }

  static fromBytes(bytes: Uint8Array): LtHash {
    if (bytes.length !== LTHASH_BYTES) throw new RangeError(`lattice hash must be ${LTHASH_BYTES} bytes`);
    return new LtHash(limbsOf(bytes.slice()));
  }

  clone(): LtHash {
    return new LtHash(this.limbs);
  }

  addLimbs(other: Uint16Array): void {
    const l = this.limbs;
    for (let i = 0; i < LTHASH_LIMBS; i++) l[i] = l[i] + other[i]; // Uint16Array wraps mod 2^16
  }

  subLimbs(other: Uint16Array): void {
    const l = this.limbs;
    for (let i = 0; i < LTHASH_LIMBS; i++) l[i] = l[i] - other[i];
  }

  /**
   * Adds (or subtracts) two 16-bit lanes per 32-bit word with the carry kept out of the upper lane
   * (SWAR): half the iterations of the per-limb loop, on the hottest path of a flatkv commit.
   */
  private mixWords(o: Uint32Array, subtract: boolean): void {
    const w = this.words;
    if (subtract) {
      for (let i = 0; i < w.length; i++) {
        const a = w[i];
        const b = o[i];
        w[i] = ((a | H) - (b & L)) ^ ((a ^ ~b) & H);
      }
    } else {
      for (let i = 0; i < w.length; i++) {
        const a = w[i];
        const b = o[i];
        w[i] = ((a & L) + (b & L)) ^ ((a ^ b) & H);
      }
    }
  }

  add(key: Uint8Array, value: Uint8Array): void {
    if (rowInto(key, value)) this.mixWords(rowOut, false);
  }

  remove(key: Uint8Array, value: Uint8Array): void {
    if (rowInto(key, value)) this.mixWords(rowOut, true);
  }

  /** The 2048-byte little-endian serialisation. */
  toBytes(): Uint8Array {
    const out = new Uint8Array(LTHASH_BYTES);
    for (let i = 0; i < LTHASH_LIMBS; i++) {
      out[2 * i] = this.limbs[i] & 0xff;
      out[2 * i + 1] = this.limbs[i] >>> 8;
    }
    return out;
  }

  /** BLAKE3-256 of the serialisation: the store root that enters the commit info. */
  root(): Uint8Array {
    return blake3_256(this.toBytes());
  }
}
