/**
 * flatkv's metadata rows in the KV store (version, oldest undoable version, lattices, roots, undo
 * records) and the combined root over the table lattices.
 */
import type { KVOp } from '../../kv/types.ts';
import { metaKey, TABLES, type Table } from './layout.ts';
import type { LatticeWrite } from './lattice-pool.ts';
import { LtHash } from './lthash.ts';

export const META_VERSION = metaKey('version');
export const META_OLDEST = metaKey('oldest');
export const META_IMPORTING = metaKey('importing');
/** First byte of every metadata row: an import deletes every row but these. */
export const T_META_BYTE = 0x4d;
export const latticeKey = (t: Table): Uint8Array => metaKey(`lattice/${t}`);
/** Root of each version still in the undo window: proofs and commit infos of recent heights need it. */
export const rootKey = (v: number): Uint8Array => metaKey(`root/${v}`);

export const u64 = (n: number): Uint8Array => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(n));
  return b;
};
export const readU64 = (b: Uint8Array | undefined): number | undefined =>
  b === undefined ? undefined : Number(new DataView(b.buffer, b.byteOffset, 8).getBigUint64(0));

/** The rows that make a version the KV store's: version, oldest undoable version, lattices. */
export function metaOps(version: number, oldest: number, lattices: Map<Table, LtHash>): KVOp[] {
  return [
    { type: 'put', key: META_VERSION, value: u64(version) },
    { type: 'put', key: META_OLDEST, value: u64(oldest) },
    ...TABLES.map((t): KVOp => ({ type: 'put', key: latticeKey(t), value: lattices.get(t)!.toBytes() })),
  ];
}

const TABLE_INDEX = Object.fromEntries(TABLES.map((t, i) => [t, i])) as Record<Table, number>;
export const tableIndex = (w: LatticeWrite): number => TABLE_INDEX[w.loc.table];

/** The store's root: BLAKE3-256 of the sum of the table lattices. */
export function combinedRoot(lattices: Map<Table, LtHash>): Uint8Array {
  const sum = new LtHash();
  for (const t of TABLES) sum.addLimbs(lattices.get(t)!.limbs);
  return sum.root();
}
