/**
 * Fee suggestions as geth's gas price oracle computes them (eth/gasprice SuggestTipCap, with geth's
 * full-node defaults): from each of the latest 20 blocks, the 3 lowest effective tips (effective gas
 * price − the block's base fee) of at least 2 wei; a block without one (empty, or only zero-tip txs)
 * counts as the last suggestion; the suggestion is the 60th percentile of those samples, at most
 * 500 gwei, and is kept until the next block.
 *
 * Before any block has a tip to sample, the last suggestion is the default: 1 gwei, geth's long-time
 * miner tip default (its oracle's starting price) and anvil's suggestion, so wallets offer a tip
 * from the first block rather than 0 (which leaves a tx that pays the base fee exactly no room when
 * the base fee rises).
 *
 * eth_gasPrice is the product spec's: the median effective gas price of the latest block's txs, never
 * below the next block's base fee (what a legacy tx must pay to be included next). A latest block
 * without txs has no median: then it is the next base fee plus the suggested tip (geth's base fee +
 * SuggestTipCap), so it is consistent with eth_maxPriorityFeePerGas.
 */
import type { ChainReader } from './backend.ts';

export const ORACLE_BLOCKS = 20;
export const ORACLE_PERCENTILE = 60;
/** Tips sampled per block, lowest first (geth's sampleNumber). */
export const ORACLE_SAMPLES_PER_BLOCK = 3;
/** Tips below this are not sampled (geth's DefaultIgnorePrice, 2 wei). */
export const ORACLE_IGNORE_TIP = 2n;
export const ORACLE_MAX_TIP = 500_000_000_000n;
export const ORACLE_DEFAULT_TIP = 1_000_000_000n;

/** The value at index ⌊(n − 1)·p/100⌋ of the sorted list, as geth's oracle takes it. */
export function percentile(values: bigint[], pct: number): bigint {
  const sorted = values.slice().sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return sorted[Math.floor(((sorted.length - 1) * pct) / 100)];
}

export class GasPriceOracle {
  private readonly chain: ChainReader;
  /** The last suggestion and the head it was computed at. */
  private last = { height: -1, tip: ORACLE_DEFAULT_TIP };

  constructor(chain: ChainReader) {
    this.chain = chain;
    // the head's height may come again as another block
    chain.onRewind?.(() => (this.last = { height: -1, tip: this.last.tip }));
  }

  async suggestTip(): Promise<bigint> {
    const head = this.chain.latestHeight();
    if (this.last.height === head) return this.last.tip;
    const lastTip = this.last.tip;
    const samples: bigint[] = [];
    // block 0 (genesis) holds no txs: geth samples from block 1 up
    for (let h = head; h >= 1 && h > head - ORACLE_BLOCKS; h--) {
      const block = await this.chain.block(h);
      if (!block) break; // below the retained blocks
      const tips = block.txs
        .map((t) => t.receipt.effectiveGasPrice - block.baseFeePerGas)
        .filter((tip) => tip >= ORACLE_IGNORE_TIP)
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
        .slice(0, ORACLE_SAMPLES_PER_BLOCK);
      samples.push(...(tips.length > 0 ? tips : [lastTip]));
    }
    let tip = samples.length > 0 ? percentile(samples, ORACLE_PERCENTILE) : lastTip;
    if (tip > ORACLE_MAX_TIP) tip = ORACLE_MAX_TIP;
    // a newer head computed meanwhile keeps its own answer
    if (this.chain.latestHeight() === head) this.last = { height: head, tip };
    return tip;
  }

  async suggestGasPrice(): Promise<bigint> {
    const [block, next] = await Promise.all([
      this.chain.block(this.chain.latestHeight()),
      this.chain.nextBaseFee(),
    ]);
    const prices = block?.txs.map((t) => t.receipt.effectiveGasPrice) ?? [];
    if (prices.length === 0) return next + (await this.suggestTip());
    const median = percentile(prices, 50);
    return median > next ? median : next;
  }
}
