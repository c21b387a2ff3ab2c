/** Binary encoding of changelog entries (memiavl WAL and flatkv undo log share it). */
import { ByteReader, ByteWriter } from '../../primitives/byte-io.ts';
import { putUvarint, uvarintLength } from '../../codec/varint.ts';
import type { ChangelogEntry, ChangeSet, StoreUpgrade } from './types.ts';

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
  const w = new ByteWriter(64 + sizes.reduce((a, b) => a + b + 16, 0));
  w.uv(e.version);
  w.uv(e.upgrades.length);
  for (const u of e.upgrades) {
    w.str(u.name);
    w.u8(u.delete ? 2 : u.renameFrom !== undefined ? 1 : 0);
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
  return w.view();
}

const truncated = (): Error => new RangeError('truncated changelog entry');

export function decodeEntry(buf: Uint8Array): ChangelogEntry {
  const r = new ByteReader(buf, truncated);
  const version = r.uv();
  const upgrades: StoreUpgrade[] = [];
  for (let n = r.uv(); n > 0; n--) {
    const name = r.str();
    const kind = r.u8();
    if (kind === 2) upgrades.push({ name, delete: true });
    else if (kind === 1) upgrades.push({ name, renameFrom: r.str() });
    else upgrades.push({ name });
  }
  const changeSets: ChangeSet[] = [];
  for (let n = r.uv(); n > 0; n--) {
    const store = r.str();
    const pairs = [];
    for (let m = r.uv(); m > 0; m--) {
      const key = r.bytes();
      pairs.push(r.u8() === 1 ? { key, value: undefined } : { key, value: r.bytes() });
    }
    changeSets.push({ store, pairs });
  }
  if (r.remaining !== 0) throw new RangeError('trailing bytes in changelog entry');
  return { version, upgrades, changeSets };
}
