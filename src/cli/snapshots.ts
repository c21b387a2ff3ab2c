import { resolve } from 'node:path';
import { join } from 'node:path';
import {
  exportSnapshotArchive,
  restoreSnapshotArchive,
  SnapshotNotFoundError,
} from '../cometbft/snapshot-archive.ts';
import { SnapshotStore } from '../cometbft/snapshots.ts';
import { loadConfig } from '../config/load.ts';
import { dataDirOf } from '../node/node.ts';
import { toHex } from '../primitives/bytes.ts';

/**
 * The node's snapshot store (data/snapshots). keep-recent plays no part in what these commands do:
 * none of them prunes.
 */
function storeOf(home: string): SnapshotStore {
  const { config } = loadConfig({ home, env: process.env });
  return new SnapshotStore({ dir: join(dataDirOf(home, config), 'snapshots'), keepRecent: 1 });
}

/**
 * `chaind snapshots list`: the state-sync snapshots in the node's data directory, newest first, one
 * line each (height, format, chunks, compressed and uncompressed bytes, items, app hash). Reads
 * only the metadata files, so it may run beside the node.
 */
export function listSnapshots(home: string): string {
  const store = storeOf(home);
  const snapshots = store.list();
  if (snapshots.length === 0) return `no state-sync snapshots in ${store.dir}\n`;
  const lines = ['height  format  chunks  size  bytes  items  app_hash'];
  for (const s of snapshots)
    lines.push(
      [s.height, s.format, s.chunks, s.size, s.bytes, s.items, toHex(s.appHash).toUpperCase()].join('  '),
    );
  return lines.join('\n') + '\n';
}

/** `chaind snapshots export --height H --output FILE`: one archive file of a stored snapshot. */
export async function exportSnapshot(
  home: string,
  height: number,
  output: string,
  force: boolean,
): Promise<string> {
  const file = resolve(output);
  const a = await exportSnapshotArchive(storeOf(home), height, file, { force });
  return `exported the snapshot of height ${height} (${a.meta.chunks} chunks, hash ${toHex(a.hash).toUpperCase()}) to ${file} (${a.archiveBytes} bytes)\n`;
}

/**
 * `chaind snapshots restore FILE`: the archive's snapshot, checked whole, into data/snapshots, where
 * this node (running or not) offers it to peers for state sync.
 */
export async function restoreSnapshot(home: string, file: string, force: boolean): Promise<string> {
  const store = storeOf(home);
  const a = await restoreSnapshotArchive(store, resolve(file), { force });
  return `restored the snapshot of height ${a.meta.height} (${a.meta.chunks} chunks, hash ${toHex(a.hash).toUpperCase()}, app hash ${toHex(a.meta.appHash).toUpperCase()}) into ${store.dir}\n`;
}

/** `chaind snapshots delete --height H`. */
export function deleteSnapshot(home: string, height: number): string {
  const store = storeOf(home);
  if (!store.delete(height)) throw new SnapshotNotFoundError(height, store.dir);
  return `deleted the snapshot of height ${height} from ${store.dir}\n`;
}
