/**
 * State sync between two applications, as CometBFT drives them: one takes a snapshot every
 * `[state-sync] snapshot-interval` heights and serves it (ListSnapshots, LoadSnapshotChunk); a fresh
 * one is offered it and applies its chunks (OfferSnapshot, ApplySnapshotChunk), then reports the
 * snapshot's height and app hash and executes the next block as the source does.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ResponseApplySnapshotChunk_Result as Apply,
  ResponseOfferSnapshot_Result as Offer,
} from 'cosmjs-types/tendermint/abci/types';
import { QueryBalanceRequest, QueryBalanceResponse } from 'cosmjs-types/cosmos/bank/v1beta1/query';
import { toAccAddress } from '../../../src/crypto/accounts.ts';
import { sha256 } from '../../../src/crypto/hash.ts';
import { concatBytes } from '../../../src/primitives/bytes.ts';
import { DEV_ACCOUNTS, makeHome } from '../../helpers/node.ts';
import {
  type AbciHarness,
  blockHash,
  decidedBlock,
  GENESIS_SECONDS,
  hex,
  openAbciApp,
  peerHome,
  proposeBlock,
  wallets,
  wrappedEthTx,
  admit,
} from './helpers.ts';

test('a snapshot taken at the interval is listed and served in chunks; a fresh application restores it to the same height and app hash, and goes on from there', async (t) => {
  const source = await openAbciApp(makeHome(t), { snapshotInterval: 2, snapshotChunkBytes: 1024 });
  t.after(() => source.close());
  assert.deepEqual(await source.call('listSnapshots', {}), { snapshots: [] });

  // blocks of five transfers: wallets 0-4 pay wallets 9-5
  const transfers = async (height: number) => {
    const txs = [];
    for (let i = 0; i < 5; i++)
      txs.push(await wrappedEthTx(wallets[i], { nonce: height - 1, to: wallets[9 - i].address, value: 7n }));
    await admit(source, ...txs);
    const block = await proposeBlock(source, height, GENESIS_SECONDS + 5 * height);
    assert.equal(block.txs.length, 5);
    return block;
  };
  await transfers(1);
  const { appHash } = (await transfers(2)).finalized;
  // written in the background after Commit of height 2
  let snapshots = (await source.call('listSnapshots', {})).snapshots;
  for (let waited = 0; snapshots.length === 0 && waited < 60_000; waited += 20) {
    await new Promise((r) => setTimeout(r, 20));
    snapshots = (await source.call('listSnapshots', {})).snapshots;
  }
  assert.equal(snapshots.length, 1);
  const [snapshot] = snapshots;
  assert.equal(snapshot.height, 2n);
  assert.equal(snapshot.format, 1);
  assert.ok(snapshot.chunks >= 2, `chunks of at most 1024 bytes (${snapshot.chunks})`);

  const load = async (chunk: number, height = 2n, format = 1) =>
    (await source.call('loadSnapshotChunk', { height, format, chunk })).chunk;
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < snapshot.chunks; i++) chunks.push(await load(i));
  assert.ok(chunks.every((c, i) => c.length === 1024 || i === chunks.length - 1));
  // metadata: the chunk hashes; hash: the hash of those
  const chunkHashes = chunks.map((c) => sha256(c));
  assert.equal(hex(snapshot.metadata), hex(concatBytes(...chunkHashes)));
  assert.equal(hex(snapshot.hash), hex(sha256(concatBytes(...chunkHashes))));
  // no such chunk, height or format: an empty chunk (never a failed call)
  assert.equal((await load(snapshot.chunks)).length, 0);
  assert.equal((await load(0, 4n)).length, 0);
  assert.equal((await load(0, 2n, 2)).length, 0);
  // height 3 is not a multiple of the interval
  const three = await transfers(3);
  assert.equal((await source.call('listSnapshots', {})).snapshots.length, 1);

  // a fresh validator of the same chain, state syncing
  const target = await openAbciApp(peerHome(t, source.home), {
    // the first block after the snapshot: its parent's hash comes from CometBFT
    parentHash: async (height) => blockHash(height - 1),
  });
  t.after(() => target.close());
  assert.equal((await target.call('info', {})).lastBlockHeight, 0n);
  assert.equal((await target.call('offerSnapshot', { snapshot, appHash })).result, Offer.ACCEPT);
  const corrupted = Uint8Array.from(chunks[0]);
  corrupted[5] ^= 0xff;
  assert.deepEqual(
    await target.call('applySnapshotChunk', { index: 0, chunk: corrupted, sender: 'bad-peer' }),
    {
      result: Apply.RETRY,
      refetchChunks: [0],
      rejectSenders: ['bad-peer'],
    },
  );
  for (let i = 0; i < chunks.length; i++) {
    const r = await target.call('applySnapshotChunk', { index: i, chunk: chunks[i], sender: 'peer' });
    assert.equal(r.result, Apply.ACCEPT, `chunk ${i}`);
  }
  const info = await target.call('info', {});
  assert.equal(info.lastBlockHeight, 2n);
  assert.equal(hex(info.lastBlockAppHash), hex(appHash));
  // a node with blocks takes no snapshot
  assert.equal((await target.call('offerSnapshot', { snapshot, appHash })).result, Offer.ABORT);

  // the restored state answers queries and executes block 3 to the source's app hash
  const balanceAt2 = async (h: AbciHarness, height: bigint) => {
    const res = await h.call('query', {
      path: '/cosmos.bank.v1beta1.Query/Balance',
      data: QueryBalanceRequest.encode({
        address: toAccAddress(DEV_ACCOUNTS[0].cosmosAddress),
        denom: 'uchain',
      }).finish(),
      height,
    });
    assert.equal(res.code, 0, res.log);
    assert.equal(res.height, 2n);
    return QueryBalanceResponse.decode(res.value).balance?.amount;
  };
  const restored = await balanceAt2(target, 0n);
  assert.equal(restored, await balanceAt2(source, 2n));
  assert.ok(BigInt(restored!) < 10_000_000_000n, 'wallet 0 paid two blocks of fees');
  const block3 = await decidedBlock(target, 3, GENESIS_SECONDS + 15, three.txs);
  assert.deepEqual(block3.txResults, three.finalized.txResults);
  assert.equal(hex(block3.appHash), hex(three.finalized.appHash));
  assert.equal((await target.call('info', {})).lastBlockHeight, 3n);
});

test('OfferSnapshot refuses a snapshot of another format, or whose hash is not its chunks’ hash', async (t) => {
  const h = await openAbciApp(makeHome(t));
  t.after(() => h.close());
  const chunk = new Uint8Array(10);
  const snapshot = {
    height: 2n,
    format: 1,
    chunks: 1,
    hash: sha256(sha256(chunk)),
    metadata: sha256(chunk),
  };
  const appHash = new Uint8Array(32);
  assert.equal(
    (await h.call('offerSnapshot', { snapshot: { ...snapshot, format: 2 }, appHash })).result,
    Offer.REJECT_FORMAT,
  );
  assert.equal(
    (await h.call('offerSnapshot', { snapshot: { ...snapshot, hash: new Uint8Array(32) }, appHash })).result,
    Offer.REJECT,
  );
  // nothing accepted: a chunk aborts
  assert.equal((await h.call('applySnapshotChunk', { index: 0, chunk, sender: 'x' })).result, Apply.ABORT);
});
