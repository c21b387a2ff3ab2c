/**
 * PrepareProposal builds the proposal from the application's mempools (not from the txs CometBFT
 * passes), within CometBFT's byte limit, executing it and leaving out what cannot execute;
 * ProcessProposal accepts a proposal only if every tx executes, so it rejects one holding a tx the
 * proposer would have left out.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ResponseProcessProposal_ProposalStatus as Status } from 'cosmjs-types/tendermint/abci/types';
import { Wallet } from 'ethers';
import { cosmosTxHash } from '../../../src/app/cosmos-tx.ts';
import { wrapDevRecord } from '../../../src/app/dev-records.ts';
import { toAccAddress } from '../../../src/crypto/accounts.ts';
import { impersonatedTransaction } from '../../../src/execution/signing.ts';
import { wrapEthTransaction } from '../../../src/execution/tx-wrap.ts';
import { toHex } from '../../../src/primitives/bytes.ts';
import { DEV_ACCOUNTS, makeHome } from '../../helpers/node.ts';
import {
  associationTx,
  at,
  blockHash,
  cosmosSend,
  GENESIS_SECONDS,
  hex,
  openAbciApp,
  PROPOSER,
  proposeBlock,
  wallets,
  wrappedEthTx,
  type AbciHarness,
  admit,
} from './helpers.ts';

const GWEI = 10n ** 9n;

/** A key the genesis does not know (so not associated). */
const fresh = new Wallet('0x' + '42'.repeat(32));

const prepare = (h: AbciHarness, height: number, maxTxBytes: bigint, txs: Uint8Array[] = []) =>
  h.call('prepareProposal', {
    maxTxBytes,
    txs,
    height: BigInt(height),
    time: at(GENESIS_SECONDS + 5 * height),
    proposerAddress: PROPOSER,
  });

const processProposal = (h: AbciHarness, height: number, txs: Uint8Array[]) =>
  h.call('processProposal', {
    txs,
    height: BigInt(height),
    time: at(GENESIS_SECONDS + 5 * height),
    hash: blockHash(height),
    proposerAddress: PROPOSER,
  });

/**
 * Block 1 sends 1 ETH to `fresh`; then `fresh` signs its first Ethereum tx and an association tx,
 * both admitted against the committed state. In a block the Ethereum tx comes first and associates
 * the key itself, so the association can no longer execute.
 */
async function freshKeyTxs(h: AbciHarness) {
  await admit(h, await wrappedEthTx(wallets[0], { nonce: 0, to: fresh.address, value: 10n ** 18n }));
  await proposeBlock(h, 1, GENESIS_SECONDS + 5);
  const eth = await wrappedEthTx(fresh, { nonce: 0, to: wallets[0].address });
  const association = associationTx(fresh, 'link my addresses');
  await admit(h, association, eth);
  return { eth, association };
}

test('PrepareProposal answers the mempool’s txs by tip, wrapped in TxRaws, within max_tx_bytes', async (t) => {
  const h = await openAbciApp(makeHome(t));
  t.after(() => h.close());
  const tip = (n: bigint) => ({ maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: n * GWEI });
  const low = await wrappedEthTx(wallets[0], { nonce: 0, ...tip(1n) });
  const high0 = await wrappedEthTx(wallets[1], { nonce: 0, ...tip(3n) });
  const high1 = await wrappedEthTx(wallets[1], { nonce: 1, ...tip(3n) });
  const mid = await wrappedEthTx(wallets[2], { nonce: 0, ...tip(2n) });
  await admit(h, low, high1, mid, high0);
  const ordered = [high0, high1, mid, low];
  const size = (n: number) => BigInt(ordered.slice(0, n).reduce((s, tx) => s + tx.length, 0));

  // the txs CometBFT passes are not what the proposal is built from
  const full = await prepare(h, 1, 1n << 20n, [Uint8Array.of(1, 2, 3)]);
  assert.deepEqual(full.txs.map(hex), ordered.map(hex));
  assert.deepEqual((await prepare(h, 1, size(3))).txs.map(hex), ordered.slice(0, 3).map(hex));
  assert.deepEqual((await prepare(h, 1, size(3) - 1n)).txs.map(hex), ordered.slice(0, 2).map(hex));
  assert.deepEqual((await prepare(h, 1, 0n)).txs, []);
  assert.equal(h.mempool.pending(), 4, 'proposing takes nothing out of the pool');
});

test('PrepareProposal leaves out a tx that cannot execute (an association its key’s Ethereum tx made first) and drops it from the pool', async (t) => {
  const h = await openAbciApp(makeHome(t));
  t.after(() => h.close());
  const { eth, association } = await freshKeyTxs(h);
  assert.equal(h.cosmosPool.size, 1);

  const { txs } = await prepare(h, 2, 1n << 20n);
  assert.deepEqual(txs.map(hex), [hex(eth)]);
  assert.equal(h.cosmosPool.get(cosmosTxHash(association)), undefined, 'dropped from the Cosmos pool');
  const leftOut = h.logs.filter((l) => l.msg === 'tx left out of proposal');
  assert.equal(leftOut.length, 1);
  assert.equal(leftOut[0].fields.tx, toHex(cosmosTxHash(association)));
  assert.match(
    String(leftOut[0].fields.reason),
    new RegExp(`^the key of ${fresh.address} is already associated`),
  );
  // the next proposal at this height holds the same
  assert.deepEqual((await prepare(h, 2, 1n << 20n)).txs.map(hex), [hex(eth)]);
});

test('PrepareProposal leaves out a Cosmos tx whose fee an earlier Ethereum tx of the block spent', async (t) => {
  const h = await openAbciApp(makeHome(t));
  t.after(() => h.close());
  const [, acc] = DEV_ACCOUNTS;
  const balance = 10_000n * 10n ** 18n;
  // wallet 1 sends all it has but the gas it pays (tip = fee cap: it pays exactly its fee cap)
  const price = 10n * GWEI;
  const drain = await wrappedEthTx(wallets[1], {
    nonce: 0,
    maxFeePerGas: price,
    maxPriorityFeePerGas: price,
    value: balance - 21_000n * price,
  });
  const send = await cosmosSend(acc.privateKey, toAccAddress(DEV_ACCOUNTS[2].cosmosAddress), 1n, {
    sequence: 0n,
    accountNumber: 1n,
  });
  await admit(h, drain, send);
  const { txs } = await prepare(h, 1, 1n << 20n);
  assert.deepEqual(txs.map(hex), [hex(drain)]);
  assert.equal(h.cosmosPool.size, 0);
});

test('ProcessProposal accepts the proposer’s own proposal and rejects one holding a tx the proposer leaves out', async (t) => {
  const h = await openAbciApp(makeHome(t));
  t.after(() => h.close());
  const { eth, association } = await freshKeyTxs(h);
  const { txs: own } = await prepare(h, 2, 1n << 20n);
  assert.equal(own.length, 1);
  assert.equal((await processProposal(h, 2, own)).status, Status.ACCEPT);

  const rejections = () => h.logs.filter((l) => l.msg === 'rejecting proposal').map((l) => l.fields.err);
  // the tx the proposer left out, after the tx that makes it fail
  assert.equal((await processProposal(h, 2, [eth, association])).status, Status.REJECT);
  assert.match(
    String(rejections().at(-1)),
    /^replaying block 2: tx [0-9a-f]{64} no longer executes: the key of/,
  );
  // bytes that are no tx
  assert.equal((await processProposal(h, 2, [...own, Uint8Array.of(1, 2, 3, 4)])).status, Status.REJECT);
  assert.match(String(rejections().at(-1)), /^tx 1 does not decode: /);
  // an Ethereum tx whose nonce is ahead of its sender's
  const gap = await wrappedEthTx(wallets[3], { nonce: 5 });
  assert.equal((await processProposal(h, 2, [...own, gap])).status, Status.REJECT);
  assert.match(String(rejections().at(-1)), /^replaying block 2: tx [0-9a-f]{64} no longer executes: /);
  // an Ethereum tx that does not decode
  const broken = wrapEthTransaction(Uint8Array.of(0x02, 0xc0));
  assert.equal((await processProposal(h, 2, [broken])).status, Status.REJECT);
  // a proposal for a height that does not follow the latest
  assert.equal((await processProposal(h, 3, own)).status, Status.REJECT);
  assert.match(String(rejections().at(-1)), /^block 3 does not follow the latest height 1$/);
  assert.equal(rejections().length, 5);

  // none of that changed anything: the own proposal is still accepted, and it commits
  assert.equal((await processProposal(h, 2, own)).status, Status.ACCEPT);
  const rejected = h.logs.find((l) => l.msg === 'rejecting proposal')!;
  assert.equal(rejected.level, 'warn');
  assert.equal(rejected.fields.proposer, toHex(PROPOSER).toUpperCase());
});

test('a network node refuses a dev chain record: in a proposal (with the reason) and at CheckTx', async (t) => {
  const h = await openAbciApp(makeHome(t));
  t.after(() => h.close());
  const whale = new Uint8Array(20).fill(0x5a);
  const patch = wrapDevRecord({
    kind: 'statePatch',
    edits: [{ op: 'setBalance', address: whale, wei: 10n ** 24n }],
  });
  const unsigned = impersonatedTransaction({
    type: 2,
    chainId: 713714n,
    nonce: 0n,
    gasLimit: 21_000n,
    to: whale,
    value: 1n,
    data: new Uint8Array(0),
    maxFeePerGas: 10n * GWEI,
    maxPriorityFeePerGas: GWEI,
    accessList: [],
  });
  const impersonated = wrapDevRecord({ kind: 'impersonated', sender: whale, raw: unsigned });
  const rejections = () =>
    h.logs.filter((l) => l.msg === 'rejecting proposal').map((l) => String(l.fields.err));
  for (const record of [patch, impersonated]) {
    assert.equal((await processProposal(h, 1, [record])).status, Status.REJECT);
    assert.match(
      rejections().at(-1)!,
      /tx 0 does not decode: the block holds a dev chain record .* only `chaind dev` accepts one/,
    );
    assert.notEqual((await h.call('checkTx', { tx: record })).code, 0);
  }
});
