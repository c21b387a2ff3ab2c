/** Binary encoding of changelog entries (memiavl WAL and flatkv undo log share it). */
import { fromUtf8, utf8 } from '../../primitives/bytes.ts';
import { putUvarint, readUvarint, uvarintLength } from '../../codec/varint.ts';
import type { ChangelogEntry, ChangeSet, StoreUpgrade } from './types.ts';

class Writer {
  buf: Uint8Array;
  len = 0;
  constructor(size: number) {
    this.buf = new Uint8Array(size);
  }
  ensure(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.len + n));
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }
  uv(n: number): void {
    this.ensure(10);
    this.len = putUvarint(this.buf, this.len, n);
  }
  bytes(b: Uint8Array): void {
    this.uv(b.length);
    this.ensure(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
  }
  str(s: string): void {
    this.bytes(utf8(s));
  }
  byte(b: number): void {
    this.ensure(1);
    this.buf[this.len++] = b;
  }
}

/** Encoded size of a change set's pairs. */
function pairsSize(cs: ChangeSet): number {
  let n = 0;
  for (const p of cs.pairs) {
    n += uvarintLength(p.key.length) + p.key.length + 1;
    if (p.value !== undefined) n += uvarintLength(p.value.length) + p.value.length;
  }
  return n;
}

/**
 * version ‖ upgrades ‖ change sets; every count and length a uvarint. Pair flag byte: 0 = set (value
 * follows), 1 = delete.
 */
export function encodeEntry(e: ChangelogEntry): Uint8Array {
  // sized up front: an entry of a large block is megabytes, and growing it by doubling showed up in
  // commit profiles
  const sizes = e.changeSets.map(pairsSize);
  const w = new Writer(64 + sizes.reduce((a, b) => a + b + 16, 0));
  w.uv(e.version);
  w.uv(e.upgrades.length);
  for (const u of e.upgrades) {
    w.str(u.name);
    w.byte(u.delete ? 2 : u.renameFrom !== undefined ? 1 : 0);
    if (u.renameFrom !== undefined) w.str(u.renameFrom);
  }
  w.uv(e.changeSets.length);
  e.changeSets.forEach((cs, i) => {
    w.str(cs.store);
    w.uv(cs.pairs.length);
    w.ensure(sizes[i]);
    const buf = w.buf;
    let off = w.len;
    for (const p of cs.pairs) {
      // room ensured above: no bounds checks per field
      off = putUvarint(buf, off, p.key.length);
      buf.set(p.key, off);
      off += p.key.length;
      if (p.value === undefined) buf[off++] = 1;
      else {
        buf[off++] = 0;
        off = putUvarint(buf, off, p.value.length);
        buf.set(p.value, off);
        off += p.value.length;
      }
    }
    w.len = off;
  });
  return w.buf.subarray(0, w.len);
}

export function decodeEntry(buf: Uint8Array): ChangelogEntry {
  let off = 0;
  const uv = (): number => {
    const [n, next] = readUvarint(buf, off);
    off = next;
    return n;
  };
  const bytes = (): Uint8Array => {
    const n = uv();
    if (off + n > buf.length) throw new RangeError('truncated changelog entry');
    const b = buf.subarray(off, off + n);
    off += n;
    return b;
  };
  const byte = (): number => {
    if (off >= buf.length) throw new RangeError('truncated changelog entry');
    return buf[off++];
  };
  const version = uv();
  const upgrades: StoreUpgrade[] = [];
  for (let n = uv(); n > 0; n--) {
    const name = fromUtf8(bytes());
    const kind = byte();
    if (kind === 2) upgrades.push({ name, delete: true });
    else if (kind === 1) upgrades.push({ name, renameFrom: fromUtf8(bytes()) });
    else upgrades.push({ name });
  }
  const changeSets: ChangeSet[] = [];
  for (let n = uv(); n > 0; n--) {
    const store = fromUtf8(bytes());
    const pairs = [];
    for (let m = uv(); m > 0; m--) {
      const key = bytes();
      pairs.push(byte() === 1 ? { key, value: undefined } : { key, value: bytes() });
    }
    changeSets.push({ store, pairs });
  }
  if (off !== buf.length) throw new RangeError('trailing bytes in changelog entry');
  return { version, upgrades, changeSets };
}
