/**
 * `npm run bench -- hash`: BLAKE3-256 of a 2048-byte input (flatkv's store root hashes its 2048-byte
 * lattice sum every block) on the unrolled compression (`blake3_256`) and on @noble/hashes' generic
 * path, in turn: µs per hash of each, and the ratio.
 */
import { blake3 } from '@noble/hashes/blake3.js';
import { blake3_256 } from '../src/crypto/hash.ts';
import { report } from './report.ts';

const BENCH = 'hash';
const input = new Uint8Array(2048).map((_, i) => (i * 7) & 255);
const N = 20_000;
const ways = [
  ['unrolled', blake3_256],
  ['noble', (x: Uint8Array) => blake3(x)],
] as const;
const us = new Map<string, number[]>();
for (let round = 0; round < 4; round++)
  for (const [way, hash] of ways) {
    const t0 = performance.now();
    for (let i = 0; i < N; i++) hash(input);
    const perHash = ((performance.now() - t0) * 1000) / N;
    if (round === 0) continue; // warm-up
    (us.get(way) ?? us.set(way, []).get(way)!).push(perHash);
    report(BENCH, 'blake3_256 of 2048 bytes', perHash, 'us', { impl: way, round });
  }
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
report(
  BENCH,
  'blake3_256 of 2048 bytes, noble ÷ unrolled',
  median(us.get('noble')!) / median(us.get('unrolled')!),
  'x',
);
