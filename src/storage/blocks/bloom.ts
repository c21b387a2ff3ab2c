/**
 * Ethereum's 2048-bit log bloom: for the address and each topic of a log, keccak-256 the bytes and
 * set three bits, taken from byte pairs (0,1), (2,3), (4,5) of the hash, each pair's value mod 2048;
 * bit b lives in byte 255 - b/8 (the bloom is a big-endian 2048-bit number).
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import type { Log } from './types.ts';

export const BLOOM_BYTES = 256;

/** The three (byte index, mask) probes of one bloom item, flattened: [i0, m0, i1, m1, i2, m2]. */
export type BloomProbe = [number, number, number, number, number, number];

export function bloomProbe(item: Uint8Array): BloomProbe {
  const h = keccak_256(item);
  const out: number[] = [];
  for (let i = 0; i < 6; i += 2) {
    const bit = ((h[i] << 8) | h[i + 1]) & 2047;
    out.push(BLOOM_BYTES - 1 - (bit >> 3), 1 << (bit & 7));
  }
  return out as BloomProbe;
}

export function bloomAddProbe(bloom: Uint8Array, p: BloomProbe): void {
  bloom[p[0]] |= p[1];
  bloom[p[2]] |= p[3];
  bloom[p[4]] |= p[5];
}

/** `bloom` is read at `off`, so a probe can test a bloom inside a larger record without copying. */
export function bloomHasProbe(bloom: Uint8Array, p: BloomProbe, off = 0): boolean {
  return (
    (bloom[off + p[0]] & p[1]) !== 0 && (bloom[off + p[2]] & p[3]) !== 0 && (bloom[off + p[4]] & p[5]) !== 0
  );
}

/**
 * Probes of recently seen items. Busy blocks log the same contracts, event signatures and account
 * topics block after block, and the keccak per item was a few percent of block production. Cleared
 * whole when full: simpler than LRU, and a refill costs only the keccaks it saves anyway.
 */
const PROBE_CACHE_MAX = 65_536;
const probeCache = new Map<string, BloomProbe>();

function cachedProbe(key: string, item: Uint8Array): BloomProbe {
  let p = probeCache.get(key);
  if (p === undefined) {
    if (probeCache.size >= PROBE_CACHE_MAX) probeCache.clear();
    p = bloomProbe(item);
    probeCache.set(key, p);
  }
  return p;
}

/** The bloom of a set of logs (a receipt's or a block's). */
export function logsBloom(logs: Iterable<Pick<Log, 'address' | 'topics'>>): Uint8Array {
  return new BloomBuilder().addLogs(logs).bloom;
}

/**
 * Accumulates a bloom, hashing each distinct item once: the logs of a block repeat the same few
 * contracts and event signatures, so this saves most of the keccak work of a block bloom.
 */
export class BloomBuilder {
  readonly bloom = new Uint8Array(BLOOM_BYTES);
  private readonly seen = new Set<string>();

  add(item: Uint8Array): this {
    const key = latin1(item);
    if (this.seen.has(key)) return this;
    this.seen.add(key);
    bloomAddProbe(this.bloom, cachedProbe(key, item));
    return this;
  }

  addLogs(logs: Iterable<Pick<Log, 'address' | 'topics'>>): this {
    for (const log of logs) {
      this.add(log.address);
      for (const t of log.topics) this.add(t);
    }
    return this;
  }
}

/** A byte string as a JS string of char codes 0-255: a cheap exact Map/Set key. */
export function latin1(b: Uint8Array, off = 0, len = b.length - off): string {
  if (len <= 1024) {
    // one call instead of a string concatenation per byte
    return String.fromCharCode.apply(null, b.subarray(off, off + len) as unknown as number[]);
  }
  return Buffer.from(b.buffer, b.byteOffset + off, len).toString('latin1');
}
