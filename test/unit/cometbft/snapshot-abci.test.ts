/**
 * The ABCI snapshot calls between two applications, as CometBFT drives them: one lists and serves
 * its snapshot, the other is offered it and applies its chunks (a corrupted one refetched from
 * another sender), and the state it restores is checked against the trusted app hash.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ResponseApplySnapshotChunk_Result as Apply,
  ResponseOfferSnapshot_Result as Offer,
} from 'cosmjs-types/tendermint/abci/types';
import { join } from 'node:path';
import type { Chain } from '../../../src/chain/chain.ts';
import { ChaindAbciApp } from '../../../src/cometbft/app.ts';
import { SnapshotStore } from '../../../src/cometbft/snapshots.ts';
import { equalBytes, toHex } from '../../../src/primitives/bytes.ts';
import { CommitStore } from '../../../src/storage/sc/commit-store.ts';
import type { SnapshotItem } from '../../../src/storage/sc/snapshot-items.ts';
import { silentLogger } from '../../../src/util/logger.ts';
import { commitRandomBlock, memoryKV, rng, tempDir, type Model } from '../storage/sc/helpers.ts';

const STORES = ['acc', 'bank', 'evm', 'staking'];

/**
 * The two sides: a serving app over a State Commit of 8 blocks with its snapshot of "height 7"
 * written in small chunks, and a restoring app whose chain imports into an empty State Commit and
 * checks the app hash as Chain.restore does.
 */
async function setup(dir: string) {
  const source = await CommitStore.open({ dir: join(dir, 'src'), stores: STORES, openKV: memoryKV() });
  const r = rng(3);
  const model: Model = new Map();
  for (let v = 1; v <= 8; v++) await commitRandomBlock(source, r, model, v, 30);
  const store = new SnapshotStore({ dir: join(dir, 'snaps'), keepRecent: 2, chunkBytes: 1024 });
  await store.write(7, source.appHash(), source.export(8));
  const serving = new ChaindAbciApp({
    snapshots: { store, interval: 0, restoreDir: join(dir, 'unused') },
    logger: silentLogger,
  } as never);

  const target = await CommitStore.open({ dir: join(dir, 'dst'), stores: STORES, openKV: memoryKV() });
  const restored: { height?: number } = {};
  const chain = {
    latestHeight: 0,
    async restore(height: number, appHash: Uint8Array, items: () => AsyncIterable<SnapshotItem>) {
      const { appHash: got } = await target.import(height + 1, items());
      if (!equalBytes(got, appHash)) throw new Error(`imports to ${toHex(got)}, ${toHex(appHash)} trusted`);
      restored.height = height;
    },
  } as unknown as Chain;
  const restoring = new ChaindAbciApp({
    chain,
    snapshots: {
      store: new SnapshotStore({ dir: join(dir, 'own'), keepRecent: 2 }),
      interval: 0,
      restoreDir: join(dir, 'restore'),
    },
    logger: silentLogger,
  } as never);
  const close = async () => {
    await source.close();
    await target.close();
  };
  return { source, serving, restoring, target, restored, close };
}

test('offer and apply: other formats and mismatched hashes are refused, a corrupted chunk is refetched and its sender rejected, the restored state has the trusted app hash', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const { source, serving, restoring, target, restored, close } = await setup(dir);
    const { snapshots } = await serving.listSnapshots();
    assert.equal(snapshots.length, 1);
    const snapshot = snapshots[0];
    assert.equal(snapshot.height, 7n);
    assert.ok(snapshot.chunks > 2, `several chunks (${snapshot.chunks})`);
    const appHash = source.appHash();

    assert.equal(
      (await restoring.offerSnapshot({ snapshot: { ...snapshot, format: 2 }, appHash })).result,
      Offer.REJECT_FORMAT,
    );
    const wrongHash = { ...snapshot, hash: new Uint8Array(32) };
    assert.equal((await restoring.offerSnapshot({ snapshot: wrongHash, appHash })).result, Offer.REJECT);
    assert.equal((await restoring.offerSnapshot({ snapshot, appHash })).result, Offer.ACCEPT);

    const chunk = async (i: number) =>
      (await serving.loadSnapshotChunk({ height: 7n, format: snapshot.format, chunk: i })).chunk;
    const bad = Uint8Array.from(await chunk(1));
    bad[10] ^= 1;
    const retry = await restoring.applySnapshotChunk({ index: 1, chunk: bad, sender: 'peer-a' });
    assert.equal(retry.result, Apply.RETRY);
    assert.deepEqual(retry.refetchChunks, [1]);
    assert.deepEqual(retry.rejectSenders, ['peer-a']);

    for (let i = 0; i < snapshot.chunks; i++) {
      const r = await restoring.applySnapshotChunk({ index: i, chunk: await chunk(i), sender: 'peer-b' });
      assert.equal(r.result, Apply.ACCEPT, `chunk ${i}`);
    }
    assert.equal(restored.height, 7);
    assert.equal(toHex(target.appHash()), toHex(appHash));
    await close();
  } finally {
    cleanup();
  }
});

test('a snapshot whose state does not import to the trusted app hash is rejected', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const { serving, restoring, restored, close } = await setup(dir);
    const [snapshot] = (await serving.listSnapshots()).snapshots;
    const appHash = new Uint8Array(32).fill(7);
    assert.equal((await restoring.offerSnapshot({ snapshot, appHash })).result, Offer.ACCEPT);
    let last;
    for (let i = 0; i < snapshot.chunks; i++) {
      const { chunk } = await serving.loadSnapshotChunk({ height: 7n, format: snapshot.format, chunk: i });
      last = await restoring.applySnapshotChunk({ index: i, chunk, sender: 'peer-b' });
    }
    assert.equal(last!.result, Apply.REJECT_SNAPSHOT);
    assert.equal(restored.height, undefined);
    // nothing is being restored any more: a stray chunk aborts
    const { chunk } = await serving.loadSnapshotChunk({ height: 7n, format: snapshot.format, chunk: 0 });
    assert.equal((await restoring.applySnapshotChunk({ index: 0, chunk, sender: 'x' })).result, Apply.ABORT);
    await close();
  } finally {
    cleanup();
  }
});
