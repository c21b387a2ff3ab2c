/**
 * FinalizeBlock and Commit: the decided block's tx results and app hash, the execution kept from
 * PrepareProposal/ProcessProposal reused (and the same outcome where the block is executed afresh),
 * and what Info answers afterwards, also after a restart on the same home (CometBFT's handshake).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { ResponseProcessProposal_ProposalStatus as Status } from 'cosmjs-types/tendermint/abci/types';
import type { StateCommitment } from '../../../src/app/genesis.ts';
import { unwrapEthTransaction } from '../../../src/execution/tx-wrap.ts';
import { toHex } from '../../../src/primitives/bytes.ts';
import { makeHome } from '../../helpers/node.ts';
import {
  type AbciHarness,
  at,
  blockHash,
  countExecutions,
  decidedBlock,
  finalizeRequest,
  GENESIS_SECONDS,
  hex,
  openAbciApp,
  peerHome,
  PROPOSER,
  proposeBlock,
  wallets,
  wrappedEthTx,
  admit,
} from './helpers.ts';

const GWEI = 10n ** 9n;
const T1 = GENESIS_SECONDS + 5;

const processProposal = (h: AbciHarness, height: number, seconds: number, txs: Uint8Array[]) =>
  h.call('processProposal', {
    txs,
    height: BigInt(height),
    time: at(seconds),
    hash: blockHash(height),
    proposerAddress: PROPOSER,
  });

const finalize = (h: AbciHarness, height: number, seconds: number, txs: Uint8Array[]) =>
  h.call('finalizeBlock', finalizeRequest(height, seconds, txs));

/** The ethereum_tx event of an EVM tx's result. */
const ethereumTxEvent = (tx: Uint8Array, index: number, gasUsed: bigint) => ({
  type: 'ethereum_tx',
  attributes: [
    { key: 'ethereumTxHash', value: toHex(keccak_256(unwrapEthTransaction(tx)!)), index: true },
    { key: 'txIndex', value: String(index), index: true },
    { key: 'txGasUsed', value: String(gasUsed), index: false },
  ],
});

test('FinalizeBlock: tx results and app hash; the proposer and a validator that processed the proposal reuse its execution, a node that did not runs it to the same outcome', async (t) => {
  const proposer = await openAbciApp(makeHome(t));
  t.after(() => proposer.close());
  const validator = await openAbciApp(peerHome(t, proposer.home));
  t.after(() => validator.close());
  const follower = await openAbciApp(peerHome(t, proposer.home));
  t.after(() => follower.close());
  const genesisHash = hex(proposer.chain.appHash);
  assert.equal(hex(follower.chain.appHash), genesisHash);

  const ok = await wrappedEthTx(wallets[0], { nonce: 0, maxPriorityFeePerGas: 2n * GWEI });
  // a contract creation whose init code is INVALID (0xfe): included, failed, all its gas used
  const failing = await wrappedEthTx(wallets[1], {
    nonce: 0,
    to: null,
    value: 0n,
    data: '0xfe',
    gasLimit: 100_000n,
    maxPriorityFeePerGas: GWEI,
  });
  await admit(proposer, failing, ok);
  const executions = {
    proposer: countExecutions(proposer.chain),
    validator: countExecutions(validator.chain),
    follower: countExecutions(follower.chain),
  };

  const { txs } = await proposer.call('prepareProposal', { maxTxBytes: 1n << 20n, height: 1n, time: at(T1) });
  assert.deepEqual(txs.map(hex), [ok, failing].map(hex));
  assert.equal(executions.proposer.count, 1, 'PrepareProposal executed the proposal');
  assert.equal((await processProposal(proposer, 1, T1, txs)).status, Status.ACCEPT);
  assert.equal((await processProposal(validator, 1, T1, txs)).status, Status.ACCEPT);
  assert.equal(
    executions.proposer.count,
    1,
    'the proposer accepts its own proposal without executing it again',
  );
  assert.equal(executions.validator.count, 1, 'ProcessProposal executed the proposal');

  const byProposer = await finalize(proposer, 1, T1, txs);
  const byValidator = await finalize(validator, 1, T1, txs);
  assert.equal(executions.proposer.count, 1, 'FinalizeBlock took the proposer’s kept execution');
  assert.equal(executions.validator.count, 1, 'FinalizeBlock took the execution ProcessProposal kept');
  // a block decided by others: FinalizeBlock without PrepareProposal or ProcessProposal
  const byFollower = await finalize(follower, 1, T1, txs);
  assert.equal(executions.follower.count, 1, 'FinalizeBlock executed the block itself');

  assert.deepEqual(byValidator.txResults, [
    {
      code: 0,
      data: new Uint8Array(0),
      log: '',
      info: '',
      gasWanted: 21_000n,
      gasUsed: 21_000n,
      events: [ethereumTxEvent(ok, 0, 21_000n)],
      codespace: '',
    },
    {
      code: 1,
      data: new Uint8Array(0),
      log: 'invalid opcode',
      info: '',
      gasWanted: 100_000n,
      gasUsed: 100_000n,
      events: [ethereumTxEvent(failing, 1, 100_000n)],
      codespace: 'evm',
    },
  ]);
  assert.deepEqual(byValidator.events, []);
  assert.deepEqual(byValidator.validatorUpdates, []);
  assert.equal(byValidator.appHash.length, 32);
  assert.notEqual(hex(byValidator.appHash), genesisHash);
  for (const other of [byProposer, byFollower]) {
    assert.deepEqual(other.txResults, byValidator.txResults);
    assert.equal(hex(other.appHash), hex(byValidator.appHash));
  }

  for (const h of [proposer, validator, follower]) {
    assert.deepEqual(await h.call('commit', {}), { retainHeight: 0n });
    const info = await h.call('info', {});
    assert.equal(info.lastBlockHeight, 1n);
    assert.equal(hex(info.lastBlockAppHash), hex(byValidator.appHash));
  }
});

test('an execution is kept per height, block time and txs: FinalizeBlock takes the one of its round, and runs a block at another time again', async (t) => {
  const h = await openAbciApp(makeHome(t));
  t.after(() => h.close());
  const a = await wrappedEthTx(wallets[0], { nonce: 0 });
  const b = await wrappedEthTx(wallets[1], { nonce: 0 });
  const executions = countExecutions(h.chain);
  // two rounds at height 1 (in the same second), two proposals processed
  assert.equal((await processProposal(h, 1, T1, [a])).status, Status.ACCEPT);
  assert.equal((await processProposal(h, 1, T1, [a, b])).status, Status.ACCEPT);
  assert.equal(executions.count, 2);
  // the first round's proposal is decided: its execution is taken
  const first = await finalize(h, 1, T1, [a]);
  assert.equal(executions.count, 2);
  assert.equal(first.txResults.length, 1);
  assert.equal((await h.call('commit', {})).retainHeight, 0n);
  assert.equal(h.chain.blocks.blockByHeight(1)?.txs.length, 1, 'the decided block is the one committed');

  // height 2: the decided block has another time than the processed one (the EVM's TIMESTAMP differs)
  assert.equal((await processProposal(h, 2, T1 + 10, [b])).status, Status.ACCEPT);
  assert.equal(executions.count, 3);
  const second = await finalize(h, 2, T1 + 11, [b]);
  assert.equal(executions.count, 4, 'executed again for its own time');
  assert.equal(second.txResults[0].code, 0);
});

for (const commitment of ['flatkv', 'iavl'] as StateCommitment[]) {
  test(`Commit answers retain height 0; Info reports the committed height and app hash, also after a restart on the same home (${commitment})`, async (t) => {
    const home = makeHome(t, commitment);
    let h = await openAbciApp(home);
    t.after(() => h.close());
    await admit(h, await wrappedEthTx(wallets[0], { nonce: 0 }));
    const one = await proposeBlock(h, 1, T1);
    assert.equal(one.txs.length, 1);

    await admit(h, await wrappedEthTx(wallets[0], { nonce: 1 }));
    const { txs } = await h.call('prepareProposal', { maxTxBytes: 1n << 20n, height: 2n, time: at(T1 + 5) });
    const two = await finalize(h, 2, T1 + 5, txs);
    // finalized, not committed: Info still answers block 1
    let info = await h.call('info', {});
    assert.equal(info.lastBlockHeight, 1n);
    assert.equal(hex(info.lastBlockAppHash), hex(one.finalized.appHash));
    assert.deepEqual(await h.call('commit', {}), { retainHeight: 0n });
    info = await h.call('info', {});
    assert.equal(info.lastBlockHeight, 2n);
    assert.equal(hex(info.lastBlockAppHash), hex(two.appHash));
    assert.notEqual(hex(two.appHash), hex(one.finalized.appHash));

    // restart: stores closed, the application built again over the same home
    await h.close();
    h = await openAbciApp(home);
    info = await h.call('info', {});
    assert.equal(info.lastBlockHeight, 2n, 'the handshake height');
    assert.equal(hex(info.lastBlockAppHash), hex(two.appHash));
    // and it goes on from there: wallet 0's next nonce is 2
    await admit(h, await wrappedEthTx(wallets[0], { nonce: 2 }));
    const three = await proposeBlock(h, 3, T1 + 10);
    assert.equal(three.txs.length, 1);
    assert.equal((await h.call('info', {})).lastBlockHeight, 3n);
  });
}

test('a restart between FinalizeBlock and Commit: Info answers the last committed block, and the block finalized again gives the same app hash', async (t) => {
  const home = makeHome(t);
  let h = await openAbciApp(home);
  t.after(() => h.close());
  await admit(h, await wrappedEthTx(wallets[0], { nonce: 0 }));
  const one = await proposeBlock(h, 1, T1);
  const txs = [await wrappedEthTx(wallets[0], { nonce: 1 })];
  const before = await finalize(h, 2, T1 + 5, txs);
  await h.close();

  h = await openAbciApp(home);
  const info = await h.call('info', {});
  assert.equal(info.lastBlockHeight, 1n);
  assert.equal(hex(info.lastBlockAppHash), hex(one.finalized.appHash));
  // CometBFT replays the block it decided
  const again = await decidedBlock(h, 2, T1 + 5, txs);
  assert.equal(hex(again.appHash), hex(before.appHash));
  assert.deepEqual(again.txResults, before.txResults);
  assert.equal((await h.call('info', {})).lastBlockHeight, 2n);
});
