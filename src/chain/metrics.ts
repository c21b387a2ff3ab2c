/**
 * Metrics of the block pipeline, recorded from each committed block (Chain.onBlock). Names follow
 * CometBFT's where one exists (`<namespace>_consensus_height`, `…_block_interval_seconds`,
 * `…_num_txs`); the namespace is `[instrumentation] namespace`. Documented in docs/metrics.md.
 */
import { Gauge, Histogram, type Registry } from 'prom-client';
import type { Header, Timestamp } from '../codec/index.ts';
import type { BlockListener } from './chain.ts';

export interface ChainMetricsSource {
  readonly latestHeight: number;
  readonly blocks: { headerByHeight(height: number): { header: Header } | undefined };
  onBlock(listener: BlockListener): () => void;
}

const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

const seconds = (t: Timestamp) => t.seconds + t.nanos / 1e9;

/** Registers the chain's metrics on `registry` and records them until the returned function is called. */
export function recordChainMetrics(
  registry: Registry,
  namespace: string,
  chain: ChainMetricsSource,
): () => void {
  const registers = [registry];
  // Read at scrape time, so it is right from the first scrape, restarts included.
  new Gauge({
    name: `${namespace}_consensus_height`,
    help: 'Height of the latest committed block.',
    registers,
    collect() {
      this.set(chain.latestHeight);
    },
  });
  const interval = new Histogram({
    name: `${namespace}_consensus_block_interval_seconds`,
    help: 'Time between this block and the previous one, from their header times.',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
    registers,
  });
  const numTxs = new Gauge({
    name: `${namespace}_consensus_num_txs`,
    help: 'Number of transactions in the latest committed block.',
    registers,
  });
  const blockTxs = new Histogram({
    name: `${namespace}_consensus_block_txs`,
    help: 'Transactions per committed block.',
    buckets: [0, 1, 5, 10, 50, 100, 500, 1000, 5000],
    registers,
  });
  const commitStep = (name: string, help: string) =>
    new Histogram({ name: `${namespace}_${name}`, help, buckets: LATENCY_BUCKETS, registers });
  const blockStore = commitStep(
    'chain_block_store_write_seconds',
    'Time to write a block with its receipts and indexes to the block store.',
  );
  const ss = commitStep(
    'chain_ss_commit_seconds',
    "Time to apply a block's change set to the State Store (SS).",
  );
  const sc = commitStep(
    'chain_sc_commit_seconds',
    'Time to commit a block to State Commit (SC), app hash included.',
  );

  // The first interval after a restart is measured from the last block stored before it.
  let previous: Timestamp | undefined = chain.blocks.headerByHeight(chain.latestHeight)?.header.time;
  return chain.onBlock(({ block, timings }) => {
    const time = block.header.time;
    if (previous) interval.observe(Math.max(0, seconds(time) - seconds(previous)));
    previous = time;
    numTxs.set(block.txs.length);
    blockTxs.observe(block.txs.length);
    blockStore.observe(timings.blockStore);
    ss.observe(timings.stateStore);
    sc.observe(timings.stateCommit);
  });
}
