/**
 * A differential campaign: `blocks` generated blocks (seeded) run on revm and on ethereumjs through
 * the harness, stopping at the first difference. Shared by the test and the bench.
 */
import { tempDir } from '../random.ts';
import type { NativeSimulator } from '../../../src/execution/simulation/native-binding.ts';
import { ALL_KINDS, BlockGenerator } from './generator.ts';
import { DiffHarness, type BlockSummary } from './harness.ts';
import type { KnownDifference } from './known-differences.ts';

export interface CampaignResult {
  blocks: number;
  txs: number;
  included: number;
  rejected: number;
  failedBeforeExecution: number;
  /** per kind: how many txs of it ran, and with what outcome */
  kinds: Map<string, Record<BlockSummary['outcomes'][number]['outcome'], number>>;
  /** kinds the campaign never made */
  missing: string[];
  /** milliseconds each engine spent in executeBlock */
  execMs: Record<string, number>;
  /** known differences met (known-differences.ts), by id */
  tolerated: Map<string, { count: number; first: string }>;
}

export async function runCampaign(opts: {
  native: NativeSimulator;
  seed: number;
  blocks: number;
  /** txs per block of the random phase: drawn in [min, max) */
  txsPerBlock?: [number, number];
  onBlock?: (s: BlockSummary) => void;
  known?: KnownDifference[];
}): Promise<CampaignResult> {
  const dir = tempDir('evm-diff-');
  const harness = await DiffHarness.open(
    dir.path,
    [{ name: 'revm', native: opts.native }, { name: 'ethereumjs' }],
    opts.known,
  );
  const gen = new BlockGenerator(opts.seed);
  const [lo, hi] = opts.txsPerBlock ?? [10, 40];
  const result: CampaignResult = {
    blocks: 0,
    txs: 0,
    included: 0,
    rejected: 0,
    failedBeforeExecution: 0,
    kinds: new Map(),
    missing: [],
    execMs: {},
    tolerated: new Map(),
  };
  try {
    for (let b = 0; b < opts.blocks; b++) {
      const view = harness.view();
      const txs = gen.nextBlock(view, lo + ((b * 7919 + opts.seed) % (hi - lo)));
      const s = await harness.runBlock(txs);
      gen.afterBlock(harness.view().nonce);
      result.blocks++;
      result.txs += s.txs;
      result.included += s.included;
      result.rejected += s.rejected;
      result.failedBeforeExecution += s.failedBeforeExecution;
      for (const o of s.outcomes) {
        const k = result.kinds.get(o.kind) ?? { ok: 0, failed: 0, rejected: 0, unpaid: 0 };
        k[o.outcome]++;
        result.kinds.set(o.kind, k);
      }
      opts.onBlock?.(s);
    }
  } finally {
    result.execMs = harness.execMs();
    result.tolerated = harness.tolerated;
    await harness.close();
    dir.remove();
  }
  result.missing = ALL_KINDS.filter((k) => !result.kinds.has(k));
  return result;
}
