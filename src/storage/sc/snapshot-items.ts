/**
 * State-sync export/import as the Cosmos snapshot item stream: for each store (name order) a
 * `store` item, then its IAVL nodes in post-order with key, value, version and height, so the importer
 * rebuilds the identical tree. flatkv's `evm` section carries only leaves (height 0): a flat table has
 * no tree, and the lattice hash does not depend on order. A legacy section named `evm_flatkv` is the
 * same data under its old name and is read as `evm`.
 */
import type { SnapshotItem } from 'cosmjs-types/cosmos/store/snapshots/v1/snapshot';
import { SnapshotItem as SnapshotItemCodec } from 'cosmjs-types/cosmos/store/snapshots/v1/snapshot';
import { putUvarint, readUvarint } from '../../codec/varint.ts';
import { ImportError, VersionUnavailableError } from './errors.ts';
import type { FlatKV } from './flatkv/store.ts';
import type { MemIavlDB, Views } from './memiavl/db.ts';
import { TreeImporter } from './memiavl/import.ts';

export type { SnapshotItem };

export const LEGACY_EVM_SECTION = 'evm_flatkv';
const EVM = 'evm';

const EMPTY = new Uint8Array(0);

export async function* exportItems(
  iavl: MemIavlDB,
  flat: FlatKV | undefined,
  version: number,
): AsyncGenerator<SnapshotItem> {
  const views = await iavl.viewsAt(version);
  const names = [...views.keys()];
  let rows: AsyncGenerator<[Uint8Array, Uint8Array]> | undefined;
  let first: IteratorResult<[Uint8Array, Uint8Array]> | undefined;
  if (flat) {
    // flatkv's read view of the version is taken now, before the stores that sort first are
    // exported: it reaches back only as far as its memory layer, which later commits' flushes move
    rows = flat.export(version);
    first = await rows.next();
    names.push(EVM);
  }
  names.sort();
  try {
    for (const name of names) {
      yield { store: { name } };
      if (rows && name === EVM) {
        for (let r = first!; !r.done; r = await rows.next()) {
          const [key, value] = r.value;
          yield { iavl: { key, value, version: BigInt(version), height: 0 } };
        }
        rows = undefined;
        continue;
      }
      for (const n of views.get(name)!.postOrder()) {
        yield {
          iavl: { key: n.key, value: n.value ?? EMPTY, version: BigInt(n.version), height: n.height },
        };
      }
    }
  } finally {
    // an export abandoned early releases flatkv's read view
    await rows?.return(undefined);
  }
}

export async function importItems(
  iavl: MemIavlDB,
  flat: FlatKV | undefined,
  version: number,
  items: AsyncIterable<SnapshotItem> | Iterable<SnapshotItem>,
): Promise<void> {
  if (!Number.isInteger(version) || version < 1) throw new ImportError(`invalid import version ${version}`);
  const it = (
    Symbol.asyncIterator in items ? items[Symbol.asyncIterator]() : toAsync(items)
  ) as AsyncIterator<SnapshotItem>;
  let peeked: SnapshotItem | undefined;
  const next = async (): Promise<SnapshotItem | undefined> => {
    if (peeked) {
      const p = peeked;
      peeked = undefined;
      return p;
    }
    const r = await it.next();
    return r.done ? undefined : r.value;
  };
  // flatkv's rows are streamed straight into it (a large EVM state is never held in memory)
  async function* evmRows(): AsyncGenerator<[Uint8Array, Uint8Array]> {
    for (let item = await next(); item; item = await next()) {
      if (item.store) {
        peeked = item;
        return;
      }
      if (!item.iavl) throw new ImportError('unsupported snapshot item (extensions are not supported)');
      // inner nodes of an IAVL-committed evm section carry no data for a flat table
      if (item.iavl.height === 0) yield [item.iavl.key, item.iavl.value];
    }
  }
  const views: Views = new Map();
  let flatImported = false;
  let importer: { name: string; tree: TreeImporter } | undefined;
  const finish = (): void => {
    if (importer) views.set(importer.name, importer.tree.finish());
    importer = undefined;
  };
  for (let item = await next(); item; item = await next()) {
    if (item.store) {
      finish();
      const name = item.store.name === LEGACY_EVM_SECTION ? EVM : item.store.name;
      if (views.has(name) || (name === EVM && flatImported))
        throw new ImportError(`store ${name} appears twice`);
      if (flat && name === EVM) {
        await flat.import(version, evmRows());
        flatImported = true;
      } else importer = { name, tree: new TreeImporter(name, version) };
    } else if (item.iavl) {
      if (!importer) throw new ImportError('node item before any store item');
      const n = item.iavl;
      importer.tree.add({
        key: n.key,
        value: n.height === 0 ? n.value : undefined,
        version: Number(n.version),
        height: n.height,
      });
    } else {
      throw new ImportError('unsupported snapshot item (extensions are not supported)');
    }
  }
  finish();
  if (flat && !flatImported) await flat.import(version, []);
  await iavl.resetTo(version, views);
}

async function* toAsync<T>(items: Iterable<T>): AsyncGenerator<T> {
  yield* items;
}

/** Length-delimited protobuf encoding of an item stream (uvarint length ‖ SnapshotItem). */
export function encodeItems(items: SnapshotItem[]): Uint8Array {
  const parts = items.map((i) => SnapshotItemCodec.encode(i).finish());
  const total = parts.reduce((n, p) => n + p.length + 10, 0);
  const out = new Uint8Array(total);
  let off = 0;
  for (const p of parts) {
    off = putUvarint(out, off, p.length);
    out.set(p, off);
    off += p.length;
  }
  return out.subarray(0, off);
}

export function* decodeItems(buf: Uint8Array): Generator<SnapshotItem> {
  let off = 0;
  while (off < buf.length) {
    const [len, next] = readUvarint(buf, off);
    if (next + len > buf.length) throw new ImportError('truncated snapshot item stream');
    yield SnapshotItemCodec.decode(buf.subarray(next, next + len));
    off = next + len;
  }
}
