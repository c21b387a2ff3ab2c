/**
 * FinalizeBlock and Commit: the decided block's tx results and app hash, the execution kept from
 * PrepareProposal/ProcessProposal reused (and the same outcome where the block is executed afresh),
 * and what Info answers afterwards, also after a restart on the same home (CometBFT's handshake).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { keccak_256 } from '@noble/hashes/sha3.js';
import {
  MisbehaviorType,
  ResponseProcessProposal_ProposalStatus as Status,
} from 'cosmjs-types/tendermint/abci/types';
import { BlockIDFlag } from 'cosmjs-types/tendermint/types/validator';
import type { ConsensusInfo } from '../../../src/app/block-hooks.ts';
import type { Chain } from '../../../src/chain/chain.ts';
import { consensusInfoOfBlock } from '../../../src/chain/consensus-info.ts';
import { stateVersion } from '../../../src/chain/state-at.ts';
import type { StateCommitment } from '../../../src/app/genesis.ts';
import { unwrapEthTransaction } from '../../../src/execution/tx-wrap.ts';
import { toHex } from '../../../src/primitives/bytes.ts';
import { parseGenesis } from '../../../src/app/genesis.ts';
import { loadConfig } from '../../../src/config/load.ts';
import { Lifecycle } from '../../../src/node/lifecycle.ts';
import { dataDirOf } from '../../../src/node/node.ts';
import { openStores } from '../../../src/node/stores.ts';
import { silentLogger } from '../../../src/util/logger.ts';
import { makeHome } from '../../helpers/node.ts';
import {
  type AbciConsensus,
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

const processProposal = (
  h: AbciHarness,
  height: number,
  seconds: number,
  txs: Uint8Array[],
  consensus: AbciConsensus = { votes: [], misbehavior: [] },
) =>
  h.call('processProposal', {
    txs,
    height: BigInt(height),
    time: at(seconds),
    hash: blockHash(height),
    proposerAddress: PROPOSER,
    proposedLastCommit: { round: 0, votes: consensus.votes },
    misbehavior: consensus.misbehavior,
  });

const VALIDATOR_A = new Uint8Array(20).fill(0x0a);
const VALIDATOR_B = new Uint8Array(20).fill(0x0b);
const VALIDATOR_C = new Uint8Array(20).fill(0x0c);

/** Three votes for the parent (one signed, one nil, one absent) and a double sign of C's. */
const CONSENSUS: AbciConsensus = {
  votes: [
    { validator: { address: VALIDATOR_A, power: 10n }, blockIdFlag: BlockIDFlag.BLOCK_ID_FLAG_COMMIT },
    { validator: { address: VALIDATOR_B, power: 7n }, blockIdFlag: BlockIDFlag.BLOCK_ID_FLAG_NIL },
    { validator: { address: VALIDATOR_C, power: 3n }, blockIdFlag: BlockIDFlag.BLOCK_ID_FLAG_ABSENT },
  ],
  misbehavior: [
    {
      type: MisbehaviorType.DUPLICATE_VOTE,
      validator: { address: VALIDATOR_C, power: 3n },
      height: 1n,
      time: { seconds: BigInt(T1), nanos: 250 },
      totalVotingPower: 20n,
    },
  ],
};

/** CONSENSUS as the block hooks get it. */
const CONSENSUS_INFO: ConsensusInfo = {
  votes: [
    { address: VALIDATOR_A, power: 10n, signed: true },
    { address: VALIDATOR_B, power: 7n, signed: true },
    { address: VALIDATOR_C, power: 3n, signed: false },
  ],
  misbehavior: [
    {
      kind: 'duplicate_vote',
      address: VALIDATOR_C,
      power: 3n,
      height: 1,
      time: { seconds: T1, nanos: 250 },
      totalVotingPower: 20n,
    },
  ],
};

/** The consensus info of each block execution the application runs, in order. */
function watchConsensus(chain: Chain): ConsensusInfo[] {
  const seen: ConsensusInfo[] = [];
  const original = chain.contextFor.bind(chain);
  chain.contextFor = (header) => {
    seen.push(header.consensus);
    return original(header);
  };
  return seen;
}

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
  // CometBFT replays the block it decided (this time the request carries votes and evidence: the
  // hooks are stubs, so the state is the same; what replay derives of them is checked below)
  const again = await decidedBlock(h, 2, T1 + 5, txs, CONSENSUS);
  assert.equal(hex(again.appHash), hex(before.appHash));
  assert.deepEqual(again.txResults, before.txResults);
  assert.equal((await h.call('info', {})).lastBlockHeight, 2n);
});

test('FinalizeBlock hands the block hooks its votes and misbehavior; the stored block keeps them, and replay derives the same', async (t) => {
  const home = makeHome(t);
  let h = await openAbciApp(home);
  t.after(() => h.close());
  await proposeBlock(h, 1, T1);
  const seen = watchConsensus(h.chain);
  const txs = [await wrappedEthTx(wallets[0], { nonce: 0 })];
  const finalized = await decidedBlock(h, 2, T1 + 5, txs, CONSENSUS);
  assert.equal(seen.length, 1, 'executed once, with the request’s consensus info');
  assert.deepEqual(seen[0], CONSENSUS_INFO);
  const stored = h.chain.blocks.blockByHeight(2)!;
  assert.deepEqual(stored.lastCommitPowers, [10n, 7n, 3n]);
  assert.equal(stored.misbehavior?.length, 1);
  assert.deepEqual(
    consensusInfoOfBlock(stored),
    seen[0],
    'what a replay of the stored block hands the hooks',
  );

  // a crash after Commit that lost the state's writes: the next start replays block 2 from its record
  await h.close();
  await withStores(home, async ({ sc, ss }) => {
    await sc.rollback(stateVersion(1));
    await ss.rollback(stateVersion(1));
  });
  h = await openAbciApp(home);
  assert.ok(
    h.logs.some((r) => r.msg === 'replayed block' && r.fields.height === 2),
    'block 2 was replayed',
  );
  const info = await h.call('info', {});
  assert.equal(info.lastBlockHeight, 2n);
  assert.equal(hex(info.lastBlockAppHash), hex(finalized.appHash), 'replayed to the same app hash');
});

test('an execution is kept per consensus info: FinalizeBlock with the votes its ProcessProposal had reuses it, with other votes runs again', async (t) => {
  const h = await openAbciApp(makeHome(t));
  t.after(() => h.close());
  const executions = countExecutions(h.chain);
  assert.equal((await processProposal(h, 1, T1, [], CONSENSUS)).status, Status.ACCEPT);
  assert.equal(executions.count, 1);
  await decidedBlock(h, 1, T1, [], CONSENSUS);
  assert.equal(executions.count, 1, 'the same votes: the kept execution');

  assert.equal((await processProposal(h, 2, T1 + 5, [], CONSENSUS)).status, Status.ACCEPT);
  assert.equal(executions.count, 2);
  const seen = watchConsensus(h.chain);
  const fewer = { ...CONSENSUS, votes: CONSENSUS.votes.slice(0, 2) };
  await decidedBlock(h, 2, T1 + 5, [], fewer);
  assert.equal(executions.count, 3, 'other votes: executed again');
  assert.deepEqual(seen, [{ ...CONSENSUS_INFO, votes: CONSENSUS_INFO.votes.slice(0, 2) }]);
  assert.deepEqual(h.chain.blocks.blockByHeight(2)?.lastCommitPowers, [10n, 7n]);

  // PrepareProposal's local last commit keys the proposer's execution the same way
  await h.call('prepareProposal', {
    maxTxBytes: 1n << 20n,
    height: 3n,
    time: at(T1 + 10),
    localLastCommit: { round: 0, votes: CONSENSUS.votes },
    misbehavior: CONSENSUS.misbehavior,
  });
  assert.equal(executions.count, 4);
  await decidedBlock(h, 3, T1 + 10, [], CONSENSUS);
  assert.equal(executions.count, 4, 'FinalizeBlock took the proposer’s execution');
});

test('a proposal whose misbehavior is of an unknown type is rejected', async (t) => {
  const h = await openAbciApp(makeHome(t));
  t.after(() => h.close());
  const unknown = {
    ...CONSENSUS,
    misbehavior: [{ ...CONSENSUS.misbehavior[0], type: MisbehaviorType.UNKNOWN }],
  };
  assert.equal((await processProposal(h, 1, T1, [], unknown)).status, Status.REJECT);
  assert.ok(h.logs.some((r) => r.msg === 'rejecting proposal' && /unknown type/.test(String(r.fields.err))));
});

test('FinalizeBlock answers the block’s validator updates (Ed25519 keys) and its block events', async (t) => {
  const h = await openAbciApp(makeHome(t));
  t.after(() => h.close());
  // the staking module's endBlock is not on this branch: the chain's execution is given updates and
  // events, and what reaches CometBFT is FinalizeBlock's answer, encoded and decoded as on the socket
  const pubKey = new Uint8Array(32).fill(0x5e);
  const original = h.chain.executeDecided.bind(h.chain);
  h.chain.executeDecided = async (slot, txs) => ({
    ...(await original(slot, txs)),
    validatorUpdates: [
      { pubKey, power: 42n },
      { pubKey: new Uint8Array(32).fill(0x5f), power: 0n },
    ],
    blockEvents: [
      { type: 'slash', attributes: [{ key: 'address', value: 'x', index: true }] },
      { type: 'complete_unbonding', attributes: [] },
    ],
  });
  const res = await h.call('finalizeBlock', finalizeRequest(1, T1, []));
  assert.deepEqual(res.validatorUpdates, [
    { pubKey: { ed25519: pubKey, secp256k1: undefined }, power: 42n },
    { pubKey: { ed25519: new Uint8Array(32).fill(0x5f), secp256k1: undefined }, power: 0n },
  ]);
  assert.deepEqual(res.events, [
    { type: 'slash', attributes: [{ key: 'address', value: 'x', index: true }] },
    { type: 'complete_unbonding', attributes: [] },
  ]);
  await h.call('commit', {});
});

test('without staking changes FinalizeBlock answers no validator updates, and InitChain none either', async (t) => {
  const h = await openAbciApp(makeHome(t));
  t.after(() => h.close());
  const init = await h.call('initChain', { chainId: h.genesis.chain_id, initialHeight: 1n });
  assert.deepEqual(init.validators, []);
  const res = await h.call('finalizeBlock', finalizeRequest(1, T1, [], CONSENSUS));
  assert.deepEqual(res.validatorUpdates, []);
  assert.deepEqual(res.events, []);
});

async function withStores<T>(home: string, fn: (s: Awaited<ReturnType<typeof openStores>>) => Promise<T>) {
  const { config } = loadConfig({ home, env: {}, flags: { 'consensus.engine': 'cometbft' } });
  const genesis = parseGenesis(readFileSync(join(home, 'config', 'genesis.json'), 'utf8'));
  const lc = new Lifecycle(silentLogger);
  try {
    return await fn(
      await openStores(lc, { dataDir: dataDirOf(home, config), config, genesis, logger: silentLogger }),
    );
  } finally {
    await lc.stop();
  }
}
