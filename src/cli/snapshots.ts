import { join } from 'node:path';
import { SnapshotStore } from '../cometbft/snapshots.ts';
import { loadConfig } from '../config/load.ts';
import { dataDirOf } from '../node/node.ts';
import { toHex } from '../primitives/bytes.ts';

/**
 * `chaind snapshots list`: the state-sync snapshots in the node's data directory, newest first, one
 * line each (height, format, chunks, compressed and uncompressed bytes, items, app hash). Reads
 * only the metadata files, so it may run beside the node.
 */
export function listSnapshots(home: string): string {
  const { config } = loadConfig({ home, env: process.env });
  const dir = join(dataDirOf(home, config), 'snapshots');
  // keep-recent plays no part in listing
  const snapshots = new SnapshotStore({ dir, keepRecent: 1 }).list();
  if (snapshots.length === 0) return `no state-sync snapshots in ${dir}\n`;
  const lines = ['height  format  chunks  size  bytes  items  app_hash'];
  for (const s of snapshots)
    lines.push(
      [s.height, s.format, s.chunks, s.size, s.bytes, s.items, toHex(s.appHash).toUpperCase()].join('  '),
    );
  return lines.join('\n') + '\n';
}
