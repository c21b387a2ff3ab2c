/**
 * executeBlock's chain rule for an Ethereum tx that cannot pay when its turn in the block comes: it is
 * included, failed before execution (nonce consumed, nothing executed), and a replay of the block
 * reproduces it exactly; a wrong nonce is still left out when proposing and refused when replaying.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Wallet, parseEther } from 'ethers';
import { Bank } from '../../../src/app/bank.ts';
import {
  type BlockHookContext,
  type ConsensusInfo,
  NO_CONSENSUS_INFO,
} from '../../../src/app/block-hooks.ts';
import { Evm, FEE_COLLECTOR_ADDRESS } from '../../../src/app/evm.ts';
import { type BlockHooks, type BlockTx, executeBlock } from '../../../src/chain/block-execution.ts';
import { toChecksumAddress } from '../../../src/crypto/accounts.ts';
import { createChainCommon } from '../../../src/execution/chain-config.ts';
import { decodeEthTransaction } from '../../../src/execution/transactions.ts';
import { unwrapEthTransaction } from '../../../src/execution/tx-wrap.ts';
import type { StateReader } from '../../../src/state/overlay.ts';
import { devAccounts, devState, devWallets, signed } from '../../helpers/dev-chain.ts';

const common = createChainCommon({ chainId: 713714n });
const GWEI = 10n ** 9n;
const hex = (b: Uint8Array) => '0x' + Buffer.from(b).toString('hex');
const feeParams = { initialBaseFee: GWEI, minBaseFee: GWEI, changeDenominator: 8n, elasticityMultiplier: 2n };
const ctx = {
  chainId: 'dev-1',
  height: 1,
  timestamp: 1_800_000_000n,
  time: { seconds: 1_800_000_000, nanos: 0 },
  consensus: NO_CONSENSUS_INFO,
  gasLimit: 30_000_000n,
  coinbase: FEE_COLLECTOR_ADDRESS,
  parentAppHash: new Uint8Array(32),
  blockHash: () => undefined,
};

const eth = async (w: Wallet, tx: object): Promise<BlockTx> => ({
  kind: 'eth',
  tx: decodeEthTransaction(
    await signed(w, {
      type: 2,
      gasLimit: 21_000,
      maxFeePerGas: 10n * GWEI,
      maxPriorityFeePerGas: GWEI,
      ...tx,
    }),
    common,
  ),
});

/** The sorted change sets as comparable values (what SC hashes into the app hash). */
const changesOf = (o: {
  changes(): { store: string; writes: { key: Uint8Array; value?: Uint8Array }[] }[];
}) =>
  o.changes().map((c) => ({
    store: c.store,
    writes: c.writes.map((w) => [hex(w.key), w.value === undefined ? null : hex(w.value)]),
  }));

test('a tx an earlier tx of the block left unable to pay is included, failed before execution, and replays identically', async () => {
  const { overlay: genesis } = devState({ associate: false });
  const [alice, bob] = devAccounts;
  const [aliceW, bobW] = devWallets;
  // A key never seen on chain, holding 1,000 wei on its cast address (no association yet).
  const fresh = new Wallet('0x' + '42'.repeat(32));
  const freshAddr = Uint8Array.from(Buffer.from(fresh.address.slice(2), 'hex'));
  new Bank(genesis).setWei(freshAddr, 1000n);
  const state: StateReader = genesis;
  const aliceHas = new Bank(genesis).wei(alice.cosmosAddress);

  const spend = await eth(aliceW, { nonce: 0, to: hex(bob.evmAddress), value: aliceHas - parseEther('1') });
  const unpayable = await eth(aliceW, { nonce: 1, to: hex(bob.evmAddress), value: parseEther('2') });
  const next = await eth(aliceW, { nonce: 2, to: hex(bob.evmAddress), value: 1n });
  const wrongNonce = await eth(bobW, { nonce: 7, to: hex(alice.evmAddress), value: 1n });
  const freshTx = await eth(fresh, { nonce: 0, to: hex(bob.evmAddress), value: 1n });
  const candidates = [spend, unpayable, wrongNonce, next, freshTx];

  const proposed = await executeBlock(common, state, ctx, feeParams, candidates, 'propose');
  const hashOf = (c: BlockTx) => hex(c.tx.hash);
  assert.deepEqual(
    proposed.rejected.map((r) => hex(r.hash)),
    [hashOf(wrongNonce)],
    'only the wrong nonce is left out',
  );
  // each engine in its own words (ethereumjs's, revm's)
  assert.match(proposed.rejected[0].reason, /doesn't have the correct nonce|nonce 7 too high/);
  assert.deepEqual(
    proposed.receipts.map((r) => [hex(r.txHash), r.status, r.gasUsed, r.failedBeforeExecution ?? false]),
    [
      [hashOf(spend), 1, 21_000n, false],
      [hashOf(unpayable), 0, 0n, true],
      [hashOf(next), 1, 21_000n, false],
      [hashOf(freshTx), 0, 0n, true],
    ],
  );
  const [r0, r1, r2, r3] = proposed.receipts;
  assert.deepEqual(
    proposed.receipts.map((r) => [r.txIndex, r.blockTxIndex, r.cumulativeGasUsed]),
    [
      [0, 0, 21_000n],
      [1, 1, 21_000n],
      [2, 2, 42_000n],
      [3, 3, 42_000n],
    ],
  );
  assert.equal(proposed.gasUsed, 42_000n, 'no gas for the txs that did not execute');
  assert.deepEqual([r1.logs, r1.contractAddress, r1.revertData], [[], null, undefined]);
  const price = 2n * GWEI; // base fee 1 gwei + tip 1 gwei
  assert.equal(r1.effectiveGasPrice, price);
  // the balance when its turn came: what the first tx left
  const left = parseEther('1') - 21_000n * price;
  assert.equal(
    r1.vmError,
    `insufficient funds for gas * price + value: address ${toChecksumAddress(alice.evmAddress)} have ${left} want ${21_000n * 10n * GWEI + parseEther('2')}`,
  );
  assert.equal(
    r3.vmError,
    `insufficient funds for gas * price + value: address ${fresh.address} have 1000 want ${21_000n * 10n * GWEI + 1n}`,
  );
  assert.equal(r0.status + r2.status, 2);

  const after = proposed.overlay;
  const evm = new Evm(after);
  const bank = new Bank(after);
  assert.equal(evm.nonce(alice.evmAddress), 3n, 'nonces 0, 1 and 2 consumed');
  assert.equal(bank.wei(alice.cosmosAddress), left - 1n - 21_000n * price, 'the unpayable tx took nothing');
  assert.equal(bank.wei(FEE_COLLECTOR_ADDRESS), 2n * 21_000n * price, 'fees of the two executed txs only');
  // A key's first included tx links its addresses whatever its result (as a Cosmos tx's ante does).
  const freshCosmos = evm.cosmosAddressOf(freshAddr);
  assert.ok(freshCosmos, 'associated');
  assert.equal(evm.nonce(freshAddr), 1n);
  assert.equal(bank.wei(freshCosmos!), 1000n, 'the cast balance moved to the account, nothing spent');
  assert.equal(bank.wei(freshAddr), 0n);

  // Replay of the block as stored: the same receipts and the same change sets (hence the same app hash).
  const stored: BlockTx[] = proposed.txs.map((raw) => ({
    kind: 'eth',
    tx: decodeEthTransaction(unwrapEthTransaction(raw)!, common),
  }));
  const replayed = await executeBlock(common, state, ctx, feeParams, stored, 'replay');
  assert.deepEqual(replayed.receipts, proposed.receipts);
  assert.deepEqual(replayed.rejected, []);
  assert.equal(replayed.gasUsed, proposed.gasUsed);
  assert.deepEqual(changesOf(replayed.overlay), changesOf(proposed.overlay));

  // A wrong nonce is still no part of a block: a replay that meets one diverges.
  await assert.rejects(executeBlock(common, state, ctx, feeParams, [...stored, wrongNonce], 'replay'), {
    code: 'REPLAY_DIVERGED',
  });
});

test('a block without such a tx executes as before: nothing is flagged', async () => {
  const { overlay } = devState();
  const [alice, bob] = devAccounts;
  const tx = await eth(devWallets[0], { nonce: 0, to: hex(bob.evmAddress), value: 5n });
  const out = await executeBlock(common, overlay, ctx, feeParams, [tx], 'propose');
  assert.equal(out.receipts.length, 1);
  assert.equal('failedBeforeExecution' in out.receipts[0], false);
  assert.equal('vmError' in out.receipts[0], false);
  assert.equal(new Evm(out.overlay).nonce(alice.evmAddress), 1n);
});

test('a proposal takes no more candidates once it has executed for its budget; the rest are not rejected', async () => {
  const { overlay } = devState();
  const [, bob] = devAccounts;
  const txs = [];
  for (let nonce = 0; nonce < 5; nonce++)
    txs.push(await eth(devWallets[0], { nonce, to: hex(bob.evmAddress), value: 1n }));
  let clock = 0;
  const now = () => (clock += 400); // every candidate "takes" 400 ms
  const proposed = await executeBlock(common, overlay, ctx, feeParams, txs, 'propose', undefined, {
    budgetMs: 1000,
    now,
  });
  assert.equal(
    proposed.txs.length,
    3,
    'started at 400 ms; 400 and 800 ms had passed before the 2nd and 3rd candidates, 1,200 before the 4th',
  );
  assert.deepEqual(proposed.rejected, []);
  // a replay runs the whole block whatever its time
  clock = 0;
  const replayed = await executeBlock(common, overlay, ctx, feeParams, txs, 'replay', undefined, {
    budgetMs: 1000,
    now,
  });
  assert.equal(replayed.txs.length, 5);
});

/**
 * The block hooks as a test watches them: each call is noted (with what a tx had done to the state
 * by then), beginBlock and endBlock each write a key of their own and emit an event, and endBlock
 * answers a validator update.
 */
function watchedHooks() {
  const calls: string[] = [];
  const seen: { consensus?: ConsensusInfo; begin?: BlockHookContext; end?: BlockHookContext } = {};
  const [alice] = devAccounts;
  const hooks: BlockHooks = {
    beginBlock: (state, block, consensus) => {
      calls.push(`begin (alice nonce ${new Evm(state).nonce(alice.evmAddress)})`);
      seen.begin = block;
      seen.consensus = consensus;
      state.set('staking', Uint8Array.of(0xb0), Uint8Array.of(1));
      return [{ type: 'begin', attributes: [{ key: 'k', value: 'b', index: true }] }];
    },
    endBlock: (state, block) => {
      calls.push(`end (alice nonce ${new Evm(state).nonce(alice.evmAddress)})`);
      seen.end = block;
      state.set('staking', Uint8Array.of(0xe0), Uint8Array.of(2));
      return {
        validatorUpdates: [{ pubKey: new Uint8Array(32).fill(9), power: 0n }],
        events: [{ type: 'end', attributes: [] }],
      };
    },
  };
  return { calls, seen, hooks };
}

test('every block runs beginBlock before its first tx and endBlock after its last, in the block’s overlay', async () => {
  const { overlay } = devState();
  const [, bob] = devAccounts;
  const txs = [
    await eth(devWallets[0], { nonce: 0, to: hex(bob.evmAddress), value: 1n }),
    await eth(devWallets[0], { nonce: 1, to: hex(bob.evmAddress), value: 1n }),
  ];
  const consensus: ConsensusInfo = {
    votes: [{ address: new Uint8Array(20).fill(1), power: 10n, signed: true }],
    misbehavior: [],
  };
  const blockCtx = { ...ctx, time: { seconds: 1_800_000_000, nanos: 42 }, consensus };
  for (const mode of ['propose', 'replay'] as const) {
    const { calls, seen, hooks } = watchedHooks();
    const out = await executeBlock(
      common,
      overlay,
      blockCtx,
      feeParams,
      txs,
      mode,
      { beforeTx: (i) => void calls.push(`tx ${i}`) },
      {},
      false,
      hooks,
    );
    assert.deepEqual(calls, ['begin (alice nonce 0)', 'tx 0', 'tx 1', 'end (alice nonce 2)'], mode);
    assert.equal(seen.consensus, consensus, 'beginBlock gets the context’s consensus info');
    assert.deepEqual(seen.begin, { height: 1, time: { seconds: 1_800_000_000, nanos: 42 } });
    assert.deepEqual(seen.end, seen.begin);
    assert.deepEqual(
      out.blockEvents.map((e) => e.type),
      ['begin', 'end'],
    );
    assert.deepEqual(out.validatorUpdates, [{ pubKey: new Uint8Array(32).fill(9), power: 0n }]);
    const staking = out.overlay.changes().find((c) => c.store === 'staking');
    assert.deepEqual(
      staking?.writes.map((w) => [hex(w.key), w.value && hex(w.value)]),
      [
        ['0xb0', '0x01'],
        ['0xe0', '0x02'],
      ],
      'the hooks’ writes are part of the block’s change set',
    );
  }
});

test('an empty block runs both hooks; a traced replay that stops before the last tx does not run endBlock', async () => {
  const { overlay } = devState();
  const empty = watchedHooks();
  const out = await executeBlock(
    common,
    overlay,
    ctx,
    feeParams,
    [],
    'propose',
    undefined,
    {},
    false,
    empty.hooks,
  );
  assert.deepEqual(empty.calls, ['begin (alice nonce 0)', 'end (alice nonce 0)']);
  assert.equal(out.validatorUpdates.length, 1);

  const [, bob] = devAccounts;
  const txs = [
    await eth(devWallets[0], { nonce: 0, to: hex(bob.evmAddress), value: 1n }),
    await eth(devWallets[0], { nonce: 1, to: hex(bob.evmAddress), value: 1n }),
  ];
  const traced = watchedHooks();
  const partial = await executeBlock(
    common,
    overlay,
    ctx,
    feeParams,
    txs,
    'replay',
    { lastTxIndex: 0 },
    {},
    false,
    traced.hooks,
  );
  assert.deepEqual(traced.calls, ['begin (alice nonce 0)']);
  assert.deepEqual(partial.validatorUpdates, []);
  assert.deepEqual(
    partial.blockEvents.map((e) => e.type),
    ['begin'],
  );
});
