/**
 * eth_simulateV1 through HTTP on an in-process node: blocks that see each other's writes, state and
 * block overrides, geth's validation error codes, traceTransfers' ERC-7528 logs, and the bounds that
 * refuse a request too large to run or to answer.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BLOCK_PROBE, revertWith, SLOAD_PROBE, SPIN, word } from './simulate-helpers.ts';
import { error, hex, result, rpcNode } from './rpc-helpers.ts';

const A = '0xa000000000000000000000000000000000000001';
const B = '0xb000000000000000000000000000000000000002';
const C = '0xc000000000000000000000000000000000000003';
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const ETH_ADDRESS = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';

/** Returns BALANCE(address). */
const balanceOf = (address: string) => '0x73' + address.slice(2) + '31' + '600052' + '60206000f3';
/** Forwards its call value to `to` with CALL, returning nothing. */
const forwardTo = (to: string) => '0x' + '6000600060006000' + '34' + '73' + to.slice(2) + '5a' + 'f1' + '00';
const pad = (a: string) => '0x' + a.slice(2).padStart(64, '0');

test('eth_simulateV1', async (t) => {
  const { url } = await rpcNode(t);
  const latest = BigInt(await result(url, 'eth_blockNumber'));
  // every request names this block: the chain moves on meanwhile
  const at = hex(latest);
  const latestBlock = await result(url, 'eth_getBlockByNumber', [at, false]);

  await t.test('block 2 sees what block 1 wrote; state overrides apply per block', async () => {
    const out = await result(url, 'eth_simulateV1', [
      {
        blockStateCalls: [
          {
            stateOverrides: { [A]: { balance: hex(10n ** 18n) } },
            calls: [{ from: A, to: B, value: hex(1000n) }],
          },
          {
            stateOverrides: {
              [C]: { code: balanceOf(B) },
            },
            calls: [
              { from: B, to: C },
              { from: B, to: A, value: hex(400n) },
              { from: B, to: C },
            ],
          },
        ],
      },
      at,
    ]);
    assert.equal(out.length, 2);
    assert.equal(BigInt(out[0].number), latest + 1n);
    assert.equal(BigInt(out[1].number), latest + 2n);
    assert.equal(out[0].parentHash, latestBlock.hash);
    assert.equal(out[1].parentHash, out[0].hash);
    assert.equal(BigInt(out[1].timestamp) - BigInt(out[0].timestamp), 12n);
    const [first] = out[0].calls;
    assert.equal(first.status, '0x1');
    assert.equal(first.gasUsed, hex(21000n));
    assert.deepEqual(first.logs, []);
    assert.equal(BigInt(out[1].calls[0].returnData), 1000n);
    assert.equal(out[1].calls[1].status, '0x1');
    assert.equal(BigInt(out[1].calls[2].returnData), 600n);
    assert.equal(out[1].transactions.length, 3);
  });

  await t.test('BLOCKHASH sees the base block and the simulated blocks before', async () => {
    // returns BLOCKHASH(NUMBER - 1)
    const parentHash = '0x' + '6001' + '43' + '03' + '40' + '600052' + '60206000f3';
    const out = await result(url, 'eth_simulateV1', [
      {
        blockStateCalls: [
          { stateOverrides: { [C]: { code: parentHash } }, calls: [{ to: C }] },
          { calls: [{ to: C }] },
        ],
      },
      at,
    ]);
    assert.equal(out[0].calls[0].returnData, latestBlock.hash);
    assert.equal(out[1].calls[0].returnData, out[0].hash);
    assert.match(out[1].transactions[0], /^0x[0-9a-f]{64}$/);
  });

  await t.test('storage overrides, a revert as a result, full transactions', async () => {
    const out = await result(url, 'eth_simulateV1', [
      {
        returnFullTransactions: true,
        blockStateCalls: [
          {
            stateOverrides: {
              [C]: { code: SLOAD_PROBE, state: { [pad('0x1')]: pad('0x2a') } },
              [B]: { code: revertWith(Buffer.from('nope')) },
            },
            calls: [
              { from: A, to: C },
              { from: A, to: B },
            ],
          },
        ],
      },
      at,
    ]);
    const [probe, reverted] = out[0].calls;
    assert.equal(probe.returnData, '0x' + word(0n) + word(42n));
    assert.equal(reverted.status, '0x0');
    assert.equal(reverted.error.code, 3);
    // as geth: a failed call returns nothing, a revert's bytes are its error's data
    assert.equal(reverted.returnData, '0x');
    assert.equal(reverted.error.data, '0x' + Buffer.from('nope').toString('hex'));
    const tx = out[0].transactions[1];
    assert.equal(tx.from, A);
    assert.equal(tx.to, B);
    assert.equal(tx.transactionIndex, '0x1');
    assert.equal(tx.blockHash, out[0].hash);
  });

  await t.test('block overrides: number and time, and the gap filled with empty blocks', async () => {
    const out = await result(url, 'eth_simulateV1', [
      {
        blockStateCalls: [
          {
            blockOverrides: { number: hex(latest + 3n), time: hex(4_000_000_000n) },
            stateOverrides: { [C]: { code: BLOCK_PROBE } },
            calls: [{ to: C }],
          },
          { calls: [{ to: C }] },
        ],
      },
      at,
    ]);
    // two empty blocks before the first given one
    assert.equal(out.length, 4);
    assert.deepEqual(out[0].calls, []);
    assert.equal(BigInt(out[2].number), latest + 3n);
    const ret = out[2].calls[0].returnData.slice(2);
    assert.equal(BigInt('0x' + ret.slice(0, 64)), latest + 3n);
    assert.equal(BigInt('0x' + ret.slice(64, 128)), 4_000_000_000n);
    const next = out[3].calls[0].returnData.slice(2);
    assert.equal(BigInt('0x' + next.slice(0, 64)), latest + 4n);
    assert.equal(BigInt('0x' + next.slice(64, 128)), 4_000_000_012n);
  });

  await t.test('geth error codes', async () => {
    const sim = (blocks: unknown[], extra: object = {}) =>
      error(url, 'eth_simulateV1', [{ blockStateCalls: blocks, ...extra }, at]);
    const funded = { [A]: { balance: hex(10n ** 18n) } };
    assert.equal(
      (
        await sim([{ stateOverrides: funded, calls: [{ from: A, to: B, nonce: '0x5' }] }], {
          validation: true,
        })
      ).code,
      -38011,
    );
    assert.equal(
      (
        await sim(
          [
            {
              stateOverrides: { [A]: { balance: hex(10n ** 18n), nonce: '0x3' } },
              calls: [{ from: A, to: B, nonce: '0x1' }],
            },
          ],
          { validation: true },
        )
      ).code,
      -38010,
    );
    const poor = await sim([{ calls: [{ from: C, to: B, value: '0x1' }] }]);
    assert.equal(poor.code, -38014);
    assert.match(
      poor.message,
      /^err: insufficient funds for gas \* price \+ value: .* \(supplied gas \d+\)$/,
    );
    assert.equal(
      (
        await sim(
          [
            {
              blockOverrides: { baseFeePerGas: hex(10n ** 9n) },
              stateOverrides: funded,
              calls: [{ from: A, to: B, maxFeePerGas: '0x1', maxPriorityFeePerGas: '0x1' }],
            },
          ],
          { validation: true },
        )
      ).code,
      -38012,
    );
    assert.equal(
      (await sim([{ stateOverrides: funded, calls: [{ from: A, to: B, gas: '0x100' }] }])).code,
      -38013,
    );
    const order = await sim([
      { blockOverrides: { number: hex(latest + 5n) } },
      { blockOverrides: { number: hex(latest + 4n) } },
    ]);
    assert.equal(order.code, -38020);
    assert.equal(order.message, `block numbers must be in order: ${latest + 4n} <= ${latest + 5n}`);
    const times = await sim([
      { blockOverrides: { time: hex(5_000_000_000n) } },
      { blockOverrides: { time: hex(5_000_000_000n) } },
    ]);
    assert.equal(times.code, -38021);
    assert.equal(
      (
        await sim([
          {
            blockOverrides: { gasLimit: hex(30_000n) },
            stateOverrides: funded,
            calls: [
              { from: A, to: B, gas: hex(25_000n) },
              { from: A, to: B, gas: hex(25_000n) },
            ],
          },
        ])
      ).code,
      -38015,
    );
    assert.equal((await sim([])).code, -32602);
    const initCode = await sim([{ calls: [{ input: '0x' + '00'.repeat(49153) }] }]);
    assert.equal(initCode.code, -38025);
    assert.equal(initCode.message, 'max initcode size exceeded: code size 49153 limit 49152');
    // the calls share the gas cap: once spent, the next call is refused
    const spent = await sim([
      { stateOverrides: { [C]: { code: SPIN } }, calls: [{ to: C }] },
      { calls: [{ to: B }] },
    ]);
    assert.equal(spent.code, -38015);
    assert.match(spent.message, /simulation_gas_limit/);
  });

  await t.test('traceTransfers: an ERC-7528 log per ether move, internal calls included', async () => {
    const out = await result(url, 'eth_simulateV1', [
      {
        traceTransfers: true,
        blockStateCalls: [
          {
            stateOverrides: { [A]: { balance: hex(10n ** 18n) }, [C]: { code: forwardTo(B) } },
            calls: [
              { from: A, to: B, value: hex(1000n) },
              { from: A, to: C, value: hex(7n) },
            ],
          },
        ],
      },
      at,
    ]);
    const [direct, forwarded] = out[0].calls;
    assert.equal(direct.logs.length, 1);
    assert.equal(direct.logs[0].address, ETH_ADDRESS);
    assert.deepEqual(direct.logs[0].topics, [TRANSFER_TOPIC, pad(A), pad(B)]);
    assert.equal(BigInt(direct.logs[0].data), 1000n);
    assert.equal(forwarded.status, '0x1');
    assert.deepEqual(
      forwarded.logs.map((l: { topics: string[] }) => l.topics.slice(1)),
      [
        [pad(A), pad(C)],
        [pad(C), pad(B)],
      ],
    );
    assert.deepEqual(
      forwarded.logs.map((l: { logIndex: string }) => l.logIndex),
      ['0x1', '0x2'],
    );
    // a frame that fails takes its transfers with it: D forwards to E, which forwards to B and reverts
    const D = '0xd000000000000000000000000000000000000004';
    const E = '0xe000000000000000000000000000000000000005';
    const reverted = await result(url, 'eth_simulateV1', [
      {
        traceTransfers: true,
        blockStateCalls: [
          {
            stateOverrides: {
              [A]: { balance: hex(10n ** 18n) },
              [D]: { code: forwardTo(E) },
              [E]: { code: forwardTo(B).slice(0, -2) + '60006000fd' },
            },
            calls: [{ from: A, to: D, value: hex(7n) }],
          },
        ],
      },
      at,
    ]);
    assert.equal(reverted[0].calls[0].status, '0x1');
    assert.deepEqual(
      reverted[0].calls[0].logs.map((l: { topics: string[] }) => l.topics.slice(1)),
      [[pad(A), pad(D)]],
    );
    // without the flag a plain transfer logs nothing
    const plain = await result(url, 'eth_simulateV1', [
      {
        blockStateCalls: [
          {
            stateOverrides: { [A]: { balance: hex(10n ** 18n) } },
            calls: [{ from: A, to: B, value: '0x1' }],
          },
        ],
      },
      at,
    ]);
    assert.deepEqual(plain[0].calls[0].logs, []);
  });

  await t.test('a request too large is refused', async () => {
    const many = await error(url, 'eth_simulateV1', [
      { blockStateCalls: Array.from({ length: 257 }, () => ({})) },
      at,
    ]);
    assert.equal(many.code, -38026);
    assert.equal(many.message, 'too many blocks');
    const far = await error(url, 'eth_simulateV1', [
      { blockStateCalls: [{ blockOverrides: { number: hex(latest + 257n) } }] },
      at,
    ]);
    assert.equal(far.code, -38026);
  });
});

test('eth_simulateV1 answers within max_response_bytes and the simulation deadline', async (t) => {
  const { url } = await rpcNode(t, {
    'evm.max_response_bytes': '20000',
    'evm.simulation_evm_timeout': '100ms',
  });
  // the deadline bounds the whole request
  const spin = await error(url, 'eth_simulateV1', [
    {
      blockStateCalls: Array.from({ length: 4 }, () => ({
        stateOverrides: { [C]: { code: SPIN } },
        calls: [{ to: C }, { to: C }],
      })),
    },
  ]);
  assert.equal(spin.code, -32000);
  assert.match(spin.message, /execution aborted \(timeout = 100ms\)/);
  // 8 KiB of return data per call: the third call's answer would not fit
  const big = '0x' + '612000' + '6000' + 'f3';
  const err = await error(url, 'eth_simulateV1', [
    {
      blockStateCalls: [{ stateOverrides: { [C]: { code: big } }, calls: [{ to: C }, { to: C }, { to: C }] }],
    },
  ]);
  assert.equal(err.code, -32005);
  assert.match(err.message, /max_response_bytes/);
});
