/** Binary encoding of changelog entries (memiavl WAL and flatkv undo log share it). */
import { fromUtf8, utf8 } from '../../primitives/bytes.ts';
import { putUvarint, readUvarint } from '../../codec/varint.ts';
import type { ChangelogEntry, ChangeSet, StoreUpgrade } from './types.ts';

class Writer {
  buf = new Uint8Array(256);
  len = 0;
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

/**
 * version ‖ upgrades ‖ change sets; every count and length a uvarint. Pair flag byte: 0 = set (value
 * follows), 1 = delete.
 */
export function encodeEntry(e: ChangelogEntry): Uint8Array {
  const w = new Writer();
  w.uv(e.version);
  w.uv(e.upgrades.length);
  for (const u of e.upgrades) {
    w.str(u.name);
    w.byte(u.delete ? 2 : u.renameFrom !== undefined ? 1 : 0);
    if (u.renameFrom !== undefined) w.str(u.renameFrom);
  }
  w.uv(e.changeSets.length);
  for (const cs of e.changeSets) {
    w.str(cs.store);
    w.uv(cs.pairs.length);
    for (const p of cs.pairs) {
      w.bytes(p.key);
      if (p.value === undefined) w.byte(1);
      else {
        w.byte(0);
        w.bytes(p.value);
      }
    }
  }
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
