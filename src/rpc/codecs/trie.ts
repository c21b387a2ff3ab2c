/**
 * Ethereum's ordered Merkle-Patricia trie root (keys = RLP of the index), used for the block view's
 * `transactionsRoot` and `receiptsRoot` over the block's EVM txs and receipts: the same roots geth
 * computes for those lists, so the Ethereum view commits to exactly the txs and receipts it serves.
 * (The chain's own commitments are the CometBFT header fields; these roots are derived, not consensus.)
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { concatBytes } from '../../primitives/bytes.ts';

/** An RLP item; `raw` is an already-encoded item embedded as is (an inline trie node). */
export type RlpInput = Uint8Array | bigint | number | RlpInput[] | { raw: Uint8Array };

export function rlpEncode(item: RlpInput): Uint8Array {
  const parts: Uint8Array[] = [];
  encodeInto(item, parts);
  return concatBytes(...parts);
}

function encodeInto(item: RlpInput, out: Uint8Array[]): void {
  if (typeof item === 'bigint' || typeof item === 'number') return encodeInto(uintBytes(BigInt(item)), out);
  if (item instanceof Uint8Array) {
    if (item.length === 1 && item[0] < 0x80) out.push(item);
    else out.push(lengthPrefix(item.length, 0x80), item);
    return;
  }
  if (!Array.isArray(item)) {
    out.push(item.raw);
    return;
  }
  const inner: Uint8Array[] = [];
  for (const x of item) encodeInto(x, inner);
  const len = inner.reduce((s, b) => s + b.length, 0);
  out.push(lengthPrefix(len, 0xc0), ...inner);
}

function lengthPrefix(len: number, offset: number): Uint8Array {
  if (len < 56) return Uint8Array.of(offset + len);
  const l = uintBytes(BigInt(len));
  return Uint8Array.of(offset + 55 + l.length, ...l);
}

/** Minimal big-endian bytes of an unsigned integer (empty for zero). */
export function uintBytes(n: bigint): Uint8Array {
  if (n === 0n) return new Uint8Array(0);
  let hex = n.toString(16);
  if (hex.length % 2) hex = '0' + hex;
  return Uint8Array.from(Buffer.from(hex, 'hex'));
}

/** keccak-256 of RLP(""): the root of an empty trie. */
export const EMPTY_TRIE_ROOT = keccak_256(Uint8Array.of(0x80));

interface Entry {
  key: number[];
  value: Uint8Array;
}

/** Root of the trie mapping RLP(i) to values[i]. */
export function orderedTrieRoot(values: readonly Uint8Array[]): Uint8Array {
  if (values.length === 0) return EMPTY_TRIE_ROOT;
  const entries: Entry[] = values.map((value, i) => ({ key: nibbles(rlpEncode(i)), value }));
  entries.sort((a, b) => compareNibbles(a.key, b.key));
  return keccak_256(rlpEncode(node(entries, 0)));
}

function nibbles(b: Uint8Array): number[] {
  const out: number[] = [];
  for (const x of b) out.push(x >> 4, x & 15);
  return out;
}

function compareNibbles(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/** Hex-prefix encoding of a nibble path (Yellow Paper appendix C). */
function hexPrefix(path: number[], leaf: boolean): Uint8Array {
  const odd = path.length % 2;
  const flag = (leaf ? 2 : 0) + odd;
  const all = odd ? [flag, ...path] : [flag, 0, ...path];
  const out = new Uint8Array(all.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = (all[2 * i] << 4) | all[2 * i + 1];
  return out;
}

/** A child reference: the node inline when its encoding is shorter than 32 bytes, else its hash. */
function ref(n: RlpInput): RlpInput {
  const enc = rlpEncode(n);
  return enc.length < 32 ? { raw: enc } : keccak_256(enc);
}

/** The node for `entries` (sorted, distinct keys sharing the first `depth` nibbles). */
function node(entries: Entry[], depth: number): RlpInput {
  if (entries.length === 1) return [hexPrefix(entries[0].key.slice(depth), true), entries[0].value];
  let common = 0;
  const first = entries[0].key;
  const last = entries[entries.length - 1].key;
  while (depth + common < first.length && first[depth + common] === last[depth + common]) common++;
  if (common > 0) {
    return [hexPrefix(first.slice(depth, depth + common), false), ref(node(entries, depth + common))];
  }
  const branch: RlpInput[] = [];
  let i = 0;
  let value: Uint8Array = new Uint8Array(0);
  if (entries[0].key.length === depth) value = entries[i++].value;
  for (let nib = 0; nib < 16; nib++) {
    const group: Entry[] = [];
    while (i < entries.length && entries[i].key[depth] === nib) group.push(entries[i++]);
    branch.push(group.length === 0 ? new Uint8Array(0) : ref(node(group, depth + 1)));
  }
  branch.push(value);
  return branch;
}
