/** Runs the tracing scenario through BlockExecutor, one block per transaction as the reference node. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { FEE_COLLECTOR_ADDRESS } from '../../../../src/app/evm.ts';
import { BlockExecutor, isRejection } from '../../../../src/execution/block-executor.ts';
import { createChainCommon } from '../../../../src/execution/chain-config.ts';
import {
  createTracer,
  type TraceConfig,
  type TraceTxContext,
  type TxTracer,
} from '../../../../src/execution/tracing/index.ts';
import { decodeEthTransaction } from '../../../../src/execution/transactions.ts';
import { CHAIN_ID, devState } from '../../../helpers/dev-chain.ts';
import { scenario } from './scenario.ts';

export const common = createChainCommon({ chainId: CHAIN_ID });
const dir = new URL('../../../fixtures/traces/', import.meta.url);
export const load = (file: string) => JSON.parse(readFileSync(new URL(file, dir), 'utf8'));
const meta = load('meta.json').txs as Record<
  string,
  { blockNumber: string; status: string; gasUsed: string }
>;

/**
 * Runs the whole scenario, tracing each transaction with `config` (its results), or with the tracer
 * it makes (the tracers); checks receipts against the reference.
 */
export async function traceScenario(
  config: TraceConfig | ((ctx: TraceTxContext) => TxTracer),
  only?: string[],
): Promise<Record<string, any>> {
  const { overlay } = devState();
  const out: Record<string, any> = {};
  for (const tx of await scenario()) {
    const m = meta[tx.name];
    const height = BigInt(m.blockNumber);
    const ex = await BlockExecutor.create(
      common,
      {
        height,
        timestamp: 1_800_000_000n + height,
        gasLimit: 30_000_000n,
        baseFee: 0n,
        coinbase: FEE_COLLECTOR_ADDRESS,
        parentAppHash: new Uint8Array(32),
        blockHash: () => undefined,
      },
      overlay,
    );
    const decoded = decodeEthTransaction(tx.raw, common);
    const traced = !only || only.includes(tx.name);
    const tracer = traced
      ? (typeof config === 'function' ? config : (ctx: TraceTxContext) => createTracer(config, ctx))({
          txHash: decoded.hash,
          txIndex: 0,
          blockHeight: height,
        })
      : undefined;
    const r = await ex.execute(decoded, 0n, { tracer });
    if (isRejection(r)) assert.fail(`${tx.name} rejected: ${r.reason}`);
    assert.equal(r.status, Number(m.status), `${tx.name}: status as the reference node's receipt`);
    assert.equal(r.gasUsed, BigInt(m.gasUsed), `${tx.name}: gas used as the reference node's receipt`);
    // a tracer made by the caller is handed back whole (it may offer more than its result)
    if (tracer) out[tx.name] = typeof config === 'function' ? tracer : tracer.result();
  }
  return out;
}
