/**
 * The KV side of flatkv's state-sync export and import: every (evm key, value) row of a read view,
 * and the deletion of every row but the metadata before an import.
 */
import type { KVOp, KVSnapshot, KVStore } from '../../kv/types.ts';
import { decodeAccount, logicalKeys } from './layout.ts';
import { T_META_BYTE } from './meta.ts';

/** Every (evm key, value) row of a read view, account rows split into their fields. */
export async function* rowsOf(snap: KVSnapshot): AsyncGenerator<[Uint8Array, Uint8Array]> {
  for await (const [k, v] of snap.iterate({ gte: Uint8Array.of(0x61), lt: Uint8Array.of(0x74) })) {
    const l = logicalKeys(k);
    if (!l) continue;
    if (l.table === 'account') {
      const a = decodeAccount(v);
      for (const { key, field } of l.keys) {
        const val = a[field!];
        if (val !== undefined) yield [key, val];
      }
    } else yield [l.keys[0].key, v];
  }
}

/** Deletes every table row (metadata stays: it marks the import in progress). */
export async function deleteRows(db: KVStore): Promise<void> {
  const dels: KVOp[] = [];
  for await (const [k] of db.iterate()) if (k[0] !== T_META_BYTE) dels.push({ type: 'del', key: k });
  await db.write(dels);
}
