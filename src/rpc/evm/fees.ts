/**
 * eth_feeHistory with geth's semantics (eth/gasprice FeeHistory):
 *   blockCount  decimal or hex (string or JSON number); 0 → empty arrays; capped at 1,024;
 *   newestBlock a number or tag (`pending` = latest); above latest → error; a pruned oldest → error;
 *   result      oldestBlock; baseFeePerGas for each block plus the block after the newest;
 *               gasUsedRatio per block; reward[block][i] = the effective tip at which the txs sorted
 *               by tip, weighted by gas used, reach percentile i of the block's gas used (zeros for
 *               an empty block), present only when percentiles are given.
 */
import { parseBlockNumber } from '../codecs/block-ref.ts';
import { CodecError } from '../codecs/errors.ts';
import { jsonKind, quantity } from '../codecs/hex.ts';
import { optional, type ParamCodec } from '../codecs/params.ts';
import type { BlockView } from '../codecs/views.ts';
import { method, type MethodTable } from '../server/dispatcher.ts';
import { ChainError } from '../../util/errors.ts';
import type { ChainReader, EvmBackend } from './backend.ts';
import type { Resolver } from './resolve.ts';

export const MAX_FEE_HISTORY_BLOCKS = 1024;
/** geth's maxQueryLimit of reward percentiles */
export const MAX_REWARD_PERCENTILES = 100;

export class InvalidPercentileError extends ChainError {
  constructor(detail: string) {
    super('RPC_INVALID_PERCENTILE', `invalid reward percentile: ${detail}`);
  }
}

export class BeyondHeadError extends ChainError {
  constructor(requested: number, head: number) {
    super('RPC_BEYOND_HEAD', `request beyond head block: requested ${requested}, head ${head}`);
  }
}

/** geth's math.HexOrDecimal64: "0x10", "16" or 16. */
const blockCount: ParamCodec<number> = {
  optional: false,
  parse(v) {
    const s = typeof v === 'number' ? String(v) : v;
    if (typeof s !== 'string')
      throw new CodecError(`json: cannot unmarshal ${jsonKind(v)} into Go value of type math.HexOrDecimal64`);
    const n = /^0[xX][0-9a-fA-F]{1,16}$/.test(s)
      ? BigInt(s)
      : /^[0-9]{1,20}$/.test(s)
        ? BigInt(s)
        : undefined;
    if (n === undefined || n >= 1n << 64n) throw new CodecError(`invalid block count ${JSON.stringify(v)}`);
    return n > BigInt(MAX_FEE_HISTORY_BLOCKS) ? MAX_FEE_HISTORY_BLOCKS : Number(n);
  },
};

const percentiles: ParamCodec<number[]> = {
  optional: false,
  parse(v) {
    if (!Array.isArray(v))
      throw new CodecError(`json: cannot unmarshal ${jsonKind(v)} into Go value of type []float64`);
    return v.map((x, i) => {
      if (typeof x !== 'number')
        throw new CodecError(
          `percentile ${i}: json: cannot unmarshal ${jsonKind(x)} into Go value of type float64`,
        );
      return x;
    });
  },
};

const newestBlock: ParamCodec<ReturnType<typeof parseBlockNumber>> = {
  optional: false,
  parse: parseBlockNumber,
};

/** Go's %f: six decimals. */
const f = (x: number) => x.toFixed(6);

function checkPercentiles(ps: number[]): void {
  if (ps.length > MAX_REWARD_PERCENTILES)
    throw new InvalidPercentileError(`over the query limit ${MAX_REWARD_PERCENTILES}`);
  ps.forEach((x, i) => {
    if (x < 0 || x > 100) throw new InvalidPercentileError(f(x));
    if (i > 0 && x <= ps[i - 1])
      throw new InvalidPercentileError(`#${i - 1}:${f(ps[i - 1])} >= #${i}:${f(x)}`);
  });
}

/** Rewards of one block at the given percentiles (geth's processBlock). */
export function blockRewards(b: BlockView, ps: number[]): bigint[] {
  if (b.txs.length === 0) return ps.map(() => 0n);
  const gasUsed = b.txs[b.txs.length - 1].receipt.cumulativeGasUsed;
  const sorted = b.txs
    .map((t) => {
      const price = t.receipt.effectiveGasPrice;
      return { gas: t.receipt.gasUsed, reward: price > b.baseFeePerGas ? price - b.baseFeePerGas : 0n };
    })
    .sort((x, y) => (x.reward < y.reward ? -1 : x.reward > y.reward ? 1 : 0));
  let i = 0;
  let sum = sorted[0].gas;
  return ps.map((pct) => {
    // geth: uint64(float64(gasUsed) * p / 100)
    const threshold = BigInt(Math.floor((Number(gasUsed) * pct) / 100));
    while (sum < threshold && i < sorted.length - 1) sum += sorted[++i].gas;
    return sorted[i].reward;
  });
}

async function feeHistory(
  chain: ChainReader,
  resolve: Resolver,
  count: number,
  newest: number,
  ps: number[],
) {
  checkPercentiles(ps);
  const head = chain.latestHeight();
  if (newest > head) throw new BeyondHeadError(newest, head);
  // geth answers {oldestBlock: "0x0", gasUsedRatio: null}, which its own result schema refuses
  // (baseFeePerGas and gasUsedRatio are required arrays): empty arrays say the same and validate
  if (count === 0) return { oldestBlock: quantity(0), baseFeePerGas: [], gasUsedRatio: [] };
  const oldest = Math.max(0, newest - count + 1);
  resolve.assertBlockRetained(oldest);
  const baseFees: string[] = [];
  const ratios: number[] = [];
  const rewards: string[][] = [];
  for (let h = oldest; h <= newest; h++) {
    const b = await chain.block(h);
    if (!b) throw new ChainError('RPC_BLOCK_MISSING', `block ${h} is not available`);
    const used = b.txs.length > 0 ? b.txs[b.txs.length - 1].receipt.cumulativeGasUsed : 0n;
    baseFees.push(quantity(b.baseFeePerGas));
    ratios.push(Number(used) / Number(b.gasLimit));
    if (ps.length > 0) rewards.push(blockRewards(b, ps).map(quantity));
  }
  const next = newest === head ? await chain.nextBaseFee() : (await chain.block(newest + 1))?.baseFeePerGas;
  if (next === undefined) throw new ChainError('RPC_BLOCK_MISSING', `block ${newest + 1} is not available`);
  baseFees.push(quantity(next));
  // geth's feeHistoryResult field order; reward omitted without percentiles
  return {
    oldestBlock: quantity(oldest),
    ...(ps.length > 0 ? { reward: rewards } : {}),
    baseFeePerGas: baseFees,
    gasUsedRatio: ratios,
  };
}

export function feeMethods({ chain }: EvmBackend, resolve: Resolver): MethodTable {
  return {
    eth_feeHistory: method([blockCount, newestBlock, optional(percentiles)], (count, ref, ps) =>
      feeHistory(chain, resolve, count, resolve.number(ref), ps ?? []),
    ),
  };
}
