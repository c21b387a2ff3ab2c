import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChainError } from '../../../../src/util/errors.ts';
import {
  MAX_SIMULATE_BLOCKS,
  parseSimulateRequest,
  planBlocks,
  type SimulateBlockInput,
} from '../../../../src/rpc/evm/simulate-v1.ts';

const block = (o: SimulateBlockInput['blockOverrides'] = {}): SimulateBlockInput => ({
  blockOverrides: o,
  stateOverrides: [],
  calls: [],
});
const base = { number: 100n, timestamp: 1000n };
const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err instanceof ChainError ? err.code : String(err);
  }
  return undefined;
};

test('planBlocks: numbers and times follow the parent unless given, gaps are filled', () => {
  const plan = planBlocks(base, [block(), block({ number: 104n }), block({ time: 2000n })]);
  assert.deepEqual(
    plan.map((b) => [b.number, b.time]),
    [
      [101n, 1012n],
      [102n, 1024n],
      [103n, 1036n],
      [104n, 1048n],
      [105n, 2000n],
    ],
  );
  // gap blocks run nothing
  assert.deepEqual(plan[1]!.calls, []);
});

test('planBlocks: geth’s order and size refusals', () => {
  assert.equal(
    codeOf(() => planBlocks(base, [block({ number: 100n })])),
    'SIMULATE_BLOCK_NUMBER_ORDER',
  );
  assert.equal(
    codeOf(() => planBlocks(base, [block({ number: 105n }), block({ number: 105n })])),
    'SIMULATE_BLOCK_NUMBER_ORDER',
  );
  assert.equal(
    codeOf(() => planBlocks(base, [block({ time: 1000n })])),
    'SIMULATE_TIMESTAMP_ORDER',
  );
  assert.equal(
    codeOf(() => planBlocks(base, [block({ number: 356n })])),
    undefined,
  );
  assert.equal(
    codeOf(() => planBlocks(base, [block({ number: 357n })])),
    'SIMULATE_CLIENT_LIMIT',
  );
});

test('parseSimulateRequest: flags, per-block overrides, and the block count refused before decoding', () => {
  const req = parseSimulateRequest({
    validation: true,
    blockStateCalls: [
      {
        blockOverrides: { number: '0x5', feeRecipient: '0x' + '11'.repeat(20) },
        stateOverrides: {
          ['0x' + '01'.padStart(40, '0')]: { movePrecompileToAddress: '0x' + '22'.repeat(20) },
        },
        calls: [{ to: '0x' + '33'.repeat(20), value: '0x1' }],
      },
      {},
    ],
  });
  assert.equal(req.validation, true);
  assert.equal(req.traceTransfers, false);
  assert.equal(req.blocks[0]!.blockOverrides.number, 5n);
  assert.deepEqual(req.blocks[0]!.stateOverrides[0]!.movePrecompileTo, new Uint8Array(20).fill(0x22));
  assert.equal(req.blocks[0]!.calls[0]!.value, 1n);
  assert.deepEqual(req.blocks[1], block());
  assert.equal(
    codeOf(() =>
      parseSimulateRequest({
        blockStateCalls: Array.from({ length: MAX_SIMULATE_BLOCKS + 1 }, () => 'junk'),
      }),
    ),
    'SIMULATE_CLIENT_LIMIT',
  );
  assert.equal(
    codeOf(() => parseSimulateRequest({ blockStateCalls: [{ calls: {} }] })),
    'RPC_INVALID_PARAM',
  );
});
