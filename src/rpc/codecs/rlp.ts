/**
 * A small RLP decoder for reading the fields of stored Ethereum transactions. The bytes were fully
 * validated by execution/ at admission; this only needs to be correct and to fail cleanly, so it
 * checks bounds and canonical lengths but nothing Ethereum-specific.
 */
import { CodecError } from './errors.ts';

export type RlpItem = Uint8Array | RlpItem[];

export function rlpDecode(input: Uint8Array): RlpItem {
  const [item, end] = decodeAt(input, 0);
  if (end !== input.length) throw new CodecError(`rlp: ${input.length - end} trailing bytes`);
  return item;
}

function decodeAt(b: Uint8Array, pos: number): [RlpItem, number] {
  if (pos >= b.length) throw new CodecError('rlp: unexpected end of input');
  const first = b[pos];
  if (first < 0x80) return [b.subarray(pos, pos + 1), pos + 1];
  if (first < 0xb8) return str(b, pos + 1, first - 0x80);
  if (first < 0xc0) {
    const [len, start] = longLength(b, pos, first - 0xb7);
    return str(b, start, len);
  }
  if (first < 0xf8) return list(b, pos + 1, first - 0xc0);
  const [len, start] = longLength(b, pos, first - 0xf7);
  return list(b, start, len);
}

function longLength(b: Uint8Array, pos: number, lenOfLen: number): [number, number] {
  const start = pos + 1 + lenOfLen;
  if (start > b.length) throw new CodecError('rlp: unexpected end of input');
  if (b[pos + 1] === 0) throw new CodecError('rlp: non-canonical size');
  let len = 0;
  for (let i = pos + 1; i < start; i++) len = len * 256 + b[i];
  if (len < 56) throw new CodecError('rlp: non-canonical size');
  return [len, start];
}

function str(b: Uint8Array, start: number, len: number): [Uint8Array, number] {
  const end = start + len;
  if (end > b.length) throw new CodecError('rlp: value size exceeds available input length');
  return [b.subarray(start, end), end];
}

function list(b: Uint8Array, start: number, len: number): [RlpItem[], number] {
  const end = start + len;
  if (end > b.length) throw new CodecError('rlp: value size exceeds available input length');
  const items: RlpItem[] = [];
  let pos = start;
  while (pos < end) {
    const [item, next] = decodeAt(b, pos);
    if (next > end) throw new CodecError('rlp: element exceeds list');
    items.push(item);
    pos = next;
  }
  return [items, end];
}
