/**
 * `chaind rollback [-n N]`: rewinds a stopped node by N blocks (default 1) and prints the new height
 * and app hash. It takes the configuration flags and environment `start` takes, and builds the node
 * the same way, so it opens the stores the node runs on (`--state-store.ss-backend`, `--db_dir`, ...).
 * A running node holds the data lock, so this fails with the lock error instead.
 */
import { toHex } from '../primitives/bytes.ts';
import { configuredNode, type StartOptions } from './start.ts';

export async function rollbackHome(
  o: StartOptions,
  blocks: number,
): Promise<{ height: number; app_hash: string }> {
  // Operator output goes to stdout as one JSON line; the node's own logs go to stderr here.
  const { node } = configuredNode(o, process.stderr);
  const { height, appHash } = await node.rollback(blocks);
  return { height, app_hash: toHex(appHash).toUpperCase() };
}
