import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChainReader } from '../../../src/rpc/evm/backend.ts';
import type { BlockView } from '../../../src/rpc/codecs/views.ts';
import { GasPriceOracle } from '../../../src/rpc/evm/gas-price-oracle.ts';

const GWEI = 1_000_000_000n;
const BASE = GWEI;

/** A chain whose block h holds txs paying the given tips over a 1 gwei base fee (in-memory fake). */
function chain(blocks: bigint[][]) {
  const c = {
    blocks,
    latestHeight: () => c.blocks.length,
    nextBaseFee: async () => BASE,
    block: async (h: number) =>
      h >= 1 && h <= c.blocks.length
        ? ({
            baseFeePerGas: BASE,
            txs: c.blocks[h - 1].map((tip) => ({ receipt: { effectiveGasPrice: BASE + tip } })),
          } as unknown as BlockView)
        : undefined,
  };
  return c as unknown as ChainReader & { blocks: bigint[][] };
}

test("the tip suggestion is geth's: 60th percentile of each recent block's 3 lowest tips", async () => {
  // samples: 1,2,3 (of 1..5) and 7,8,9 → sorted 1,2,3,7,8,9 → index ⌊5·0.6⌋ = 3 → 7
  const o = new GasPriceOracle(
    chain([[5n, 4n, 3n, 2n, 1n].map((x) => x * GWEI), [9n, 8n, 7n].map((x) => x * GWEI)]),
  );
  assert.equal(await o.suggestTip(), 7n * GWEI);
  // the gas price: the median price the latest block's txs paid (8, 9, 10 gwei)
  assert.equal(await o.suggestGasPrice(), 9n * GWEI);
});

test('without txs the default 1 gwei; empty blocks sample the last suggestion; dust tips are ignored', async () => {
  const c = chain([[], []]);
  const o = new GasPriceOracle(c);
  assert.equal(await o.suggestTip(), GWEI);
  // an empty latest block has no median price: the next base fee plus the suggested tip
  assert.equal(await o.suggestGasPrice(), BASE + GWEI);
  // a block of 3 gwei tips among empty ones: samples 1,1 (the last suggestion), 3,3,3
  c.blocks.push([3n * GWEI, 3n * GWEI, 3n * GWEI]);
  assert.equal(await o.suggestTip(), 3n * GWEI);
  // tips of 0 and 1 wei are not sampled: that block counts as the last suggestion (3 gwei)
  c.blocks.push([0n, 1n]);
  assert.equal(await o.suggestTip(), 3n * GWEI);
});

test('only the latest 20 blocks count, and the suggestion is capped at 500 gwei', async () => {
  const c = chain([
    ...Array.from({ length: 5 }, () => [1000n * GWEI]),
    ...Array.from({ length: 20 }, () => [2n * GWEI]),
  ]);
  assert.equal(await new GasPriceOracle(c).suggestTip(), 2n * GWEI);
  assert.equal(await new GasPriceOracle(chain([[1000n * GWEI]])).suggestTip(), 500n * GWEI);
});
