/**
 * A node about to state sync starts from nothing but genesis; what an earlier attempt left in its
 * stores is removed before anything opens them (docs/adr/0017-state-sync-clears-unfinished-attempts.md).
 * An attempt leaves them in one of these states, none of which the next restore can build on:
 * State Commit's `IMPORTING` marker (a crash mid-import), a State Commit above an empty block store
 * (a crash between the import and the block store's mark), a populated EVM State Store next to an
 * empty Cosmos one (a data directory wiped while the EVM store lives elsewhere, or kept by hand).
 *
 * Only a node whose block store holds neither a block nor a restore mark qualifies: the pipeline
 * writes the block store first, so such a node has committed nothing a restore would not replace.
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { NodeConfig } from '../config/schema.ts';
import { resolveLayout } from '../storage/ss/options.ts';
import type { Logger } from '../util/logger.ts';

export interface StateSyncLeftover {
  /** What the directory holds, as the log line names it. */
  store: 'State Commit' | 'Cosmos state store' | 'EVM state store';
  dir: string;
}

/** True when this start is a state sync: network mode with `[statesync] enable = true`. */
export function startsWithStateSync(config: NodeConfig): boolean {
  return config.config.consensus.engine === 'cometbft' && config.config.statesync.enable;
}

/**
 * The non-empty store directories this node would open. The EVM State Store is one of them only
 * with the split on: with it off, the node never opens that directory (it stays until deleted by hand).
 */
export function stateSyncLeftovers(dataDir: string, config: NodeConfig): StateSyncLeftover[] {
  const ssc = config.app.stateStore;
  const found: StateSyncLeftover[] = [{ store: 'State Commit', dir: join(dataDir, 'state_commit') }];
  if (ssc.ssEnable) {
    const layout = resolveLayout({
      dataDir,
      backend: ssc.ssBackend,
      evmDbDirectory: ssc.evmSsDbDirectory || undefined,
    });
    found.push({ store: 'Cosmos state store', dir: layout.cosmosDir });
    if (ssc.evmSsSplit) found.push({ store: 'EVM state store', dir: layout.evmDir });
  }
  return found.filter((l) => existsSync(l.dir) && readdirSync(l.dir).length > 0);
}

/**
 * Empties each leftover directory (its entries, not the directory itself, which may be a mount
 * point) and logs one line per directory naming it.
 */
export function removeStateSyncLeftovers(dataDir: string, config: NodeConfig, logger: Logger): void {
  const log = logger.child({ module: 'node' });
  for (const { store, dir } of stateSyncLeftovers(dataDir, config)) {
    const entries = readdirSync(dir);
    for (const entry of entries) rmSync(join(dir, entry), { recursive: true, force: true });
    log.warn(
      { store, dir, entries },
      `stale ${store} removed before state syncing: [statesync] enable = true and no block is committed`,
    );
  }
}
