/**
 * SHA-256 of four messages at once, one per 32-bit lane of WebAssembly SIMD vectors: the inner nodes
 * of one height in an IAVL commit are independent, and their preimages (zz(height) ‖ zz(size) ‖
 * zz(version) ‖ 0x20 ‖ left ‖ 0x20 ‖ right, 69..81 bytes) are always two SHA-256 blocks, so a commit
 * can hash them four at a time. Per hash this is a fraction of a native one-shot `crypto.hash` call,
 * whose cost at 80 bytes is almost all call overhead.
 *
 * The module is generated here (see wasm-emit.ts). Checked against node:crypto by tests.
 */
import {
  BITSELECT,
  get,
  I32,
  i32c,
  I32_ADD,
  I32_LOAD,
  I32_LT_U,
  I32_STORE,
  I32X4_ADD,
  I32X4_EXTRACT,
  I32X4_REPLACE,
  I32X4_SHL,
  I32X4_SHR_U,
  I32X4_SPLAT,
  instantiate,
  OR,
  set,
  shuffle,
  splatc,
  V128,
  wasmModule,
  XOR,
} from '../wasm-emit.ts';

/** First 32 bits of the fractional parts of the square (IV) and cube (K) roots of the first primes. */
const PRIMES: number[] = [];
for (let n = 2; PRIMES.length < 64; n++) if (PRIMES.every((p) => n % p !== 0)) PRIMES.push(n);
const frac32 = (x: number): number => Math.floor((x - Math.floor(x)) * 2 ** 32) >>> 0;
const H0 = PRIMES.slice(0, 8).map((p) => frac32(Math.sqrt(p)));
const K = PRIMES.map((p) => frac32(Math.cbrt(p)));

/** Memory: four padded messages of MSG_BYTES each, then four 32-byte digests. */
export const LANES = 4;
export const MSG_BYTES = 128;
const MSGS_PTR = 0;
export const OUT_PTR = LANES * MSG_BYTES;

const BSWAP = shuffle([3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12]);

// locals: param blocks(0); i32 off(1); v128: H 8 (2..9), S 8 (10..17), W 16 (18..33), T1 (34), T2 (35)
const P_BLOCKS = 0;
const OFF = 1;
const H = 2;
const S = 10;
const W = 18;
const T1 = 34;
const T2 = 35;

const rotr = (x: number, n: number): number[] => [
  ...get(x), ...i32c(n), ...I32X4_SHR_U, ...get(x), ...i32c(32 - n), ...I32X4_SHL, ...OR,
]; // prettier-ignore
const shr = (x: number, n: number): number[] => [...get(x), ...i32c(n), ...I32X4_SHR_U];

function body(): number[] {
  const out: number[] = [];
  for (let i = 0; i < 8; i++) out.push(...splatc(H0[i]), ...set(H + i));
  out.push(...i32c(0), ...set(OFF));
  out.push(0x03, 0x40); // loop over blocks
  // W[i] = big-endian word i of this block of each message
  for (let i = 0; i < 16; i++) {
    out.push(...get(OFF), ...I32_LOAD(MSGS_PTR + 4 * i), ...I32X4_SPLAT);
    for (let j = 1; j < LANES; j++)
      out.push(...get(OFF), ...I32_LOAD(MSGS_PTR + j * MSG_BYTES + 4 * i), ...I32X4_REPLACE(j));
    out.push(...set(W + i), ...get(W + i), ...get(W + i), ...BSWAP, ...set(W + i));
  }
  for (let i = 0; i < 8; i++) out.push(...get(H + i), ...set(S + i));
  // registers renamed per round instead of moved: v[0..7] are the locals holding a..h
  let v = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => S + i);
  for (let t = 0; t < 64; t++) {
    const w = W + (t % 16);
    if (t >= 16) {
      const w2 = W + ((t - 2) % 16);
      const w7 = W + ((t - 7) % 16);
      const w15 = W + ((t - 15) % 16);
      // w += σ1(w[t-2]) + w[t-7] + σ0(w[t-15])
      out.push(...rotr(w2, 17), ...rotr(w2, 19), ...XOR, ...shr(w2, 10), ...XOR);
      out.push(...get(w7), ...I32X4_ADD);
      out.push(...rotr(w15, 7), ...rotr(w15, 18), ...XOR, ...shr(w15, 3), ...XOR, ...I32X4_ADD);
      out.push(...get(w), ...I32X4_ADD, ...set(w));
    }
    const [a, b, c, d, e, f, g, h] = v;
    // T1 = h + Σ1(e) + Ch(e, f, g) + K[t] + W[t]
    out.push(...get(h), ...rotr(e, 6), ...rotr(e, 11), ...XOR, ...rotr(e, 25), ...XOR, ...I32X4_ADD);
    out.push(...get(f), ...get(g), ...get(e), ...BITSELECT, ...I32X4_ADD);
    out.push(...splatc(K[t]), ...I32X4_ADD, ...get(w), ...I32X4_ADD, ...set(T1));
    // T2 = Σ0(a) + Maj(a, b, c); Maj = bitselect(c, b, a ^ b)
    out.push(...rotr(a, 2), ...rotr(a, 13), ...XOR, ...rotr(a, 22), ...XOR);
    out.push(...get(c), ...get(b), ...get(a), ...get(b), ...XOR, ...BITSELECT, ...I32X4_ADD, ...set(T2));
    // e' = d + T1 (into d's local), a' = T1 + T2 (into h's local)
    out.push(...get(d), ...get(T1), ...I32X4_ADD, ...set(d));
    out.push(...get(T1), ...get(T2), ...I32X4_ADD, ...set(h));
    v = [h, a, b, c, d, e, f, g];
  }
  // 64 renamings are 8 full turns: v is the identity again
  for (let i = 0; i < 8; i++) out.push(...get(H + i), ...get(v[i]), ...I32X4_ADD, ...set(H + i));
  out.push(...get(OFF), ...i32c(64), ...I32_ADD, ...set(OFF));
  out.push(...get(OFF), ...get(P_BLOCKS), ...i32c(6), 0x74, ...I32_LT_U, 0x0d, 0); // while off < 64 * blocks
  out.push(0x0b); // end loop
  for (let i = 0; i < 8; i++) {
    out.push(...get(H + i), ...get(H + i), ...BSWAP, ...set(H + i));
    for (let j = 0; j < LANES; j++)
      out.push(...i32c(0), ...get(H + i), ...I32X4_EXTRACT(j), ...I32_STORE(OUT_PTR + 32 * j + 4 * i));
  }
  return out;
}

export interface Sha256x4 {
  /** Memory holding the four messages (at lane * MSG_BYTES) and the digests (at OUT_PTR + 32 * lane). */
  mem: Uint8Array;
  /** Hashes the four messages, each already padded to `blocks` 64-byte blocks. */
  run(blocks: number): void;
}

let instance: Sha256x4 | null | undefined;

/** This thread's 4-lane SHA-256, or undefined where WASM SIMD is unavailable. */
export function sha256x4(): Sha256x4 | undefined {
  if (instance === undefined) {
    const ex = instantiate<{ sha256x4: (blocks: number) => void }>(
      wasmModule([
        {
          name: 'sha256x4',
          params: [I32],
          locals: [
            [1, I32],
            [34, V128],
          ],
          code: body(),
        },
      ]),
    );
    instance = ex ? { mem: new Uint8Array(ex.mem.buffer), run: ex.sha256x4 } : null;
  }
  return instance ?? undefined;
}

/**
 * Pads `len` message bytes already at `mem[off..off+len)` (SHA-256: 0x80, zeros, 64-bit big-endian
 * bit length) to `blocks` blocks.
 */
export function pad(mem: Uint8Array, off: number, len: number, blocks: number): void {
  const end = off + blocks * 64;
  mem[off + len] = 0x80;
  mem.fill(0, off + len + 1, end - 4);
  const bits = len * 8;
  mem[end - 4] = bits >>> 24;
  mem[end - 3] = bits >>> 16;
  mem[end - 2] = bits >>> 8;
  mem[end - 1] = bits;
}
