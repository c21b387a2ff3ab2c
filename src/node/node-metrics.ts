/**
 * Node-level gauges operators graph beside consensus, read at scrape time:
 * `<ns>_consensus_lag_blocks`, how many blocks the node is behind the highest height it knows of
 * (what `/lag_status` reports), and `<ns>_storage_size_bytes{store}`, the disk each store under the
 * data directory takes (allocated blocks, as `du` counts them: LMDB's map file is sparse, so its
 * length says nothing), and `<ns>_block_engine_info{engine}`, the EVM that runs blocks. Documented in
 * docs/metrics.md.
 */
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Gauge, type Registry } from 'prom-client';

export interface NodeMetricsSource {
  /** Blocks between the node's height and the highest height it knows of (0 when level). */
  lagBlocks(): number;
  /** The data directory; each directory in it is a store (blockstore, state_commit, the SS backend). */
  dataDir: string;
  /** The EVM that runs blocks: 'revm' or 'ethereumjs'. */
  blockEngine: string;
}

/** Bytes allocated on disk to the files under `dir`; files removed while walking are skipped. */
async function allocatedBytes(dir: string): Promise<number> {
  let total = 0;
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  for (const e of entries) {
    if (!e.isFile()) continue;
    const st = await lstat(join(e.parentPath, e.name)).catch(() => undefined);
    if (st) total += st.blocks * 512;
  }
  return total;
}

export function registerNodeMetrics(registry: Registry, namespace: string, source: NodeMetricsSource): void {
  const registers = [registry];
  new Gauge({
    name: `${namespace}_consensus_lag_blocks`,
    help: 'Blocks between this node and the highest height it knows of (peers, CometBFT).',
    registers,
    collect() {
      this.set(source.lagBlocks());
    },
  });
  new Gauge({
    name: `${namespace}_block_engine_info`,
    help: 'The EVM that runs blocks (label engine: revm or ethereumjs); always 1.',
    labelNames: ['engine'],
    registers,
  }).set({ engine: source.blockEngine }, 1);
  new Gauge({
    name: `${namespace}_storage_size_bytes`,
    help: 'Disk allocated to each store under the data directory.',
    labelNames: ['store'],
    registers,
    async collect() {
      const stores = await readdir(source.dataDir, { withFileTypes: true }).catch(() => []);
      const sizes: [string, number][] = [];
      for (const s of stores)
        if (s.isDirectory()) sizes.push([s.name, await allocatedBytes(join(source.dataDir, s.name))]);
      // replaced at once, so a scrape running beside this one never sees a store missing
      this.reset();
      for (const [store, bytes] of sizes) this.set({ store }, bytes);
    },
  });
}
