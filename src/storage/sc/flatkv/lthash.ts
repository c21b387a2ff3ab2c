/**
 * The homomorphic lattice hash of flatkv (DESIGN §5): a vector of 1024 uint16 limbs with element-wise
 * arithmetic mod 2^16. A row (k, v) contributes the BLAKE3-XOF expansion (2048 bytes, read as
 * little-endian uint16 limbs) of `u32le(len k) ‖ k ‖ u32le(len v) ‖ v`; insert adds, delete or
 * overwrite subtracts the old row. Being a sum, the hash of a table is independent of write order and
 * can be updated in O(changed rows) per block, which is why flatkv commits are cheap.
 */
import { blake3Xof, blake3_256 } from '../../../crypto/hash.ts';

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

export class LtHash {
  readonly limbs: Uint16Array;

  constructor(limbs?: Uint16Array) {
    this.limbs = limbs ? limbs.slice() : new Uint16Array(LTHASH_LIMBS);
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

  add(key: Uint8Array, value: Uint8Array): void {
    const r = rowLimbs(key, value);
    if (r) this.addLimbs(r);
  }

  remove(key: Uint8Array, value: Uint8Array): void {
    const r = rowLimbs(key, value);
    if (r) this.subLimbs(r);
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
