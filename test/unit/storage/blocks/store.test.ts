import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { sha256 } from '../../../../src/crypto/hash.ts';
import { openLmdbStore } from '../../../../src/storage/kv/lmdb.ts';
import { toHex } from '../../../../src/primitives/bytes.ts';
import {
  BlockHeightError,
  BlockStoreClosedError,
  InvalidBlockDataError,
  openBlockStore,
  type BlockStore,
} from '../../../../src/storage/blocks/index.ts';
import { makeChain, pools, prng, tempDir, type BlockContents } from './fixtures.ts';

const shape = { evmTxs: 5, cosmosTxs: 3, logsPerTx: 1, ...pools(5, 8) };

function chain(n: number, seed = 1, from = 1): BlockContents[] {
  return [...makeChain(from, n, shape, prng(seed))];
}

async function fill(store: BlockStore, blocks: BlockContents[]): Promise<void> {
  for (const c of blocks) await store.putBlock(c.block, c.receipts, c.results);
}

/** Every key/value of the environment, hex-encoded, for whole-database comparisons. */
async function dump(dir: string): Promise<Map<string, string>> {
  const kv = await openLmdbStore(join(dir, 'blockstore'));
  const out = new Map<string, string>();
  for (const [k, v] of kv.iterateSync!()) out.set(toHex(k), toHex(v));
  await kv.close();
  return out;
}

function assertBlockReadable(store: BlockStore, c: BlockContents): void {
  const h = c.block.header.height;
  assert.deepEqual(store.blockByHeight(h), c.block);
  assert.deepEqual(store.blockByHash(c.block.hash), c.block);
  assert.deepEqual(store.headerByHeight(h), { header: c.block.header, hash: c.block.hash });
  assert.deepEqual(store.blockHashByHeight(h), c.block.hash);
  assert.deepEqual(store.receiptsOfBlock(h), c.receipts);
  assert.deepEqual(store.cosmosResultsOfBlock(h), c.results);
  for (const rc of c.receipts) {
    assert.deepEqual(store.txLocationByEvmHash(rc.txHash), {
      height: h,
      index: rc.blockTxIndex,
      evmIndex: rc.txIndex,
      blockHash: c.block.hash,
    });
    assert.deepEqual(store.txAt(h, rc.blockTxIndex), c.block.txs[rc.blockTxIndex]);
    assert.deepEqual(store.receiptByEvmHash(rc.txHash), { receipt: rc, height: h, blockHash: c.block.hash });
    assert.deepEqual(store.receipt(h, rc.txIndex), rc);
  }
  c.block.txs.forEach((tx, i) =>
    assert.deepEqual(store.txLocationByCosmosHash(sha256(tx)), { height: h, index: i }),
  );
  assert.equal(store.txAt(h, c.block.txs.length), undefined);
  assert.deepEqual(store.txAt(h, 0), c.block.txs[0]);
  for (const res of c.results) {
    const tx = c.block.txs[res.index];
    assert.deepEqual(store.cosmosResultByHash(sha256(tx)), {
      result: res,
      location: { height: h, index: res.index },
    });
  }
}

function assertBlockGone(store: BlockStore, c: BlockContents): void {
  const h = c.block.header.height;
  assert.equal(store.blockByHeight(h), undefined);
  assert.equal(store.txAt(h, 0), undefined);
  assert.equal(store.blockByHash(c.block.hash), undefined);
  assert.equal(store.receiptsOfBlock(h), undefined);
  assert.equal(store.cosmosResultsOfBlock(h), undefined);
  for (const rc of c.receipts) assert.equal(store.receiptByEvmHash(rc.txHash), undefined);
  for (const tx of c.block.txs) assert.equal(store.txLocationByCosmosHash(sha256(tx)), undefined);
}

test('putBlock stores everything of a height; readers and watermarks; data survives reopen', async () => {
  const dir = tempDir('blocks-');
  try {
    const blocks = chain(6);
    let store = await openBlockStore({ dataDir: dir.path, sync: false });
    assert.equal(store.latestHeight(), undefined);
    assert.equal(store.earliestHeight(), undefined);
    await fill(store, blocks);
    assert.equal(store.latestHeight(), 6);
    assert.equal(store.earliestHeight(), 1);
    for (const c of blocks) assertBlockReadable(store, c);
    assert.equal(store.blockByHeight(7), undefined);
    assert.equal(store.receiptByEvmHash(new Uint8Array(32)), undefined);
    await store.close();

    store = await openBlockStore({ dataDir: dir.path });
    assert.equal(store.latestHeight(), 6);
    assert.equal(store.earliestHeight(), 1);
    for (const c of blocks) assertBlockReadable(store, c);
    await store.close();
  } finally {
    dir.remove();
  }
});

test('heights must extend the chain by one; the first block may start anywhere', async () => {
  const dir = tempDir('blocks-');
  try {
    const store = await openBlockStore({ dataDir: dir.path, sync: false });
    const blocks = chain(4, 2, 10);
    await store.putBlock(blocks[0].block, blocks[0].receipts, blocks[0].results);
    assert.equal(store.earliestHeight(), 10);
    await assert.rejects(store.putBlock(blocks[2].block, blocks[2].receipts), (e: unknown) => {
      assert.ok(e instanceof BlockHeightError);
      assert.match(e.message, /cannot store height 12; the next height is 11/);
      return true;
    });
    await assert.rejects(store.putBlock(blocks[0].block), BlockHeightError);
    await store.putBlock(blocks[1].block, blocks[1].receipts, blocks[1].results);
    assert.equal(store.latestHeight(), 11);
    await store.close();
  } finally {
    dir.remove();
  }
});

test('startAfter (a state-sync restore): the empty store begins above the snapshot height, across reopen', async () => {
  const dir = tempDir('blocks-');
  try {
    let store = await openBlockStore({ dataDir: dir.path, sync: false });
    await store.startAfter(20);
    assert.equal(store.latestHeight(), 20);
    assert.equal(store.earliestHeight(), 21);
    assert.equal(store.blockByHeight(20), undefined);
    const blocks = chain(2, 3, 21);
    await assert.rejects(
      store.putBlock(chain(1, 3, 22)[0].block),
      /cannot store height 22; the next height is 21/,
    );
    await store.putBlock(blocks[0].block, blocks[0].receipts, blocks[0].results);
    await store.close();
    store = await openBlockStore({ dataDir: dir.path, sync: false });
    assert.equal(store.latestHeight(), 21);
    assert.equal(store.earliestHeight(), 21);
    assertBlockReadable(store, blocks[0]);
    await fill(store, blocks.slice(1));
    assert.equal(store.latestHeight(), 22);
    // only an empty store starts anywhere
    await assert.rejects(store.startAfter(40), BlockHeightError);
    await store.close();
  } finally {
    dir.remove();
  }
});

test('a putBlock that throws leaves nothing behind (validation happens before the write)', async () => {
  const dir = tempDir('blocks-');
  try {
    const store = await openBlockStore({ dataDir: dir.path, sync: false });
    const [b1, b2] = chain(2, 3);
    await fill(store, [b1]);
    const before = await (async () => {
      await store.close();
      return dump(dir.path);
    })();
    const s2 = await openBlockStore({ dataDir: dir.path, sync: false });
    const lastReceipt = b2.receipts.at(-1)!;
    const bad: [string, () => Promise<void>, RegExp][] = [
      [
        'wrong hash',
        () => s2.putBlock({ ...b2.block, hash: new Uint8Array(32) }, b2.receipts),
        /is not the header hash/,
      ],
      [
        "a CometBFT block whose hash is not 32 bytes (its header is not hashed: CometBFT's hash is kept)",
        () => s2.putBlock({ ...b2.block, hash: new Uint8Array(31), hashFromEngine: true }, b2.receipts),
        /block hash/,
      ],
      [
        'a bad topic in the last receipt',
        () =>
          s2.putBlock(b2.block, [
            ...b2.receipts.slice(0, -1),
            {
              ...lastReceipt,
              logs: [{ ...lastReceipt.logs[0], logIndex: 999, topics: [new Uint8Array(31)] }],
            },
          ]),
        /topics\[0\] must be 32 bytes|logIndex must be/,
      ],
      ['receipts out of order', () => s2.putBlock(b2.block, [...b2.receipts].reverse()), /txIndex must be 0/],
      [
        'result index past the txs',
        () => s2.putBlock(b2.block, b2.receipts, [{ ...b2.results[0], index: 1000 }]),
        /must increase and be below/,
      ],
      [
        'a commit power missing',
        () => s2.putBlock({ ...b2.block, lastCommitPowers: [] }, b2.receipts),
        /lastCommitPowers must hold one power per lastCommit signature/,
      ],
      [
        'a negative commit power',
        () =>
          s2.putBlock(
            { ...b2.block, lastCommitPowers: b2.block.lastCommit.signatures.map(() => -1n) },
            b2.receipts,
          ),
        /lastCommitPowers\[0\] must be a non-negative bigint/,
      ],
      [
        'misbehavior of an unknown kind',
        () =>
          s2.putBlock(
            {
              ...b2.block,
              misbehavior: [
                {
                  kind: 'equivocation' as 'duplicate_vote',
                  address: new Uint8Array(20),
                  power: 1n,
                  height: 1,
                  time: { seconds: 0, nanos: 0 },
                  totalVotingPower: 1n,
                },
              ],
            },
            b2.receipts,
          ),
        /misbehavior\[0\]\.kind must be/,
      ],
      [
        'empty validators hash',
        () => s2.putBlock({ ...b2.block, header: { ...b2.block.header, validatorsHash: new Uint8Array() } }),
        /empty validators_hash/,
      ],
    ];
    for (const [what, put, message] of bad) {
      await assert.rejects(
        put(),
        (e: unknown) => e instanceof InvalidBlockDataError && message.test(e.message),
        what,
      );
    }
    assert.equal(s2.latestHeight(), 1);
    await s2.close();
    assert.deepEqual(await dump(dir.path), before);
  } finally {
    dir.remove();
  }
});

test('truncateAbove leaves exactly the database of the shorter chain (every index entry scanned)', async () => {
  const a = tempDir('blocks-');
  const b = tempDir('blocks-');
  try {
    const blocks = chain(12, 4);
    const store = await openBlockStore({ dataDir: a.path, sync: false });
    await fill(store, blocks);
    await store.truncateAbove(7);
    assert.equal(store.latestHeight(), 7);
    for (const c of blocks.slice(7)) assertBlockGone(store, c);
    for (const c of blocks.slice(0, 7)) assertBlockReadable(store, c);
    const logs = store.getLogs({ fromBlock: 0, toBlock: 100 }).logs;
    assert.equal(logs.at(-1)?.blockHeight, 7);
    // the chain continues from the new tip with different blocks
    const fork = [...makeChain(8, 2, shape, prng(99), blocks[6].block.hash)];
    await fill(store, fork);
    assert.equal(store.latestHeight(), 9);
    await store.truncateAbove(7);
    await store.close();

    const ref = await openBlockStore({ dataDir: b.path, sync: false });
    await fill(ref, blocks.slice(0, 7));
    await ref.close();
    assert.deepEqual(await dump(a.path), await dump(b.path));
  } finally {
    a.remove();
    b.remove();
  }
});

test('truncateAbove below the earliest height empties the store; pruneBelow equals a chain started later', async () => {
  const a = tempDir('blocks-');
  const b = tempDir('blocks-');
  try {
    const blocks = chain(10, 5);
    const store = await openBlockStore({ dataDir: a.path, sync: false });
    await fill(store, blocks);
    await store.pruneBelow(4);
    assert.equal(store.earliestHeight(), 4);
    for (const c of blocks.slice(0, 3)) assertBlockGone(store, c);
    for (const c of blocks.slice(3)) assertBlockReadable(store, c);
    await store.pruneBelow(2); // no-op: already pruned
    assert.equal(store.earliestHeight(), 4);
    await store.close();
    const ref = await openBlockStore({ dataDir: b.path, sync: false });
    await fill(ref, blocks.slice(3));
    await ref.close();
    assert.deepEqual(await dump(a.path), await dump(b.path));

    const again = await openBlockStore({ dataDir: a.path, sync: false });
    assert.equal(again.earliestHeight(), 4);
    await again.pruneBelow(1000); // keeps the latest block
    assert.equal(again.earliestHeight(), 10);
    assert.equal(again.latestHeight(), 10);
    await again.truncateAbove(3);
    assert.equal(again.latestHeight(), undefined);
    assert.equal(again.earliestHeight(), undefined);
    await again.close();
    assert.equal((await dump(a.path)).size, 0);
  } finally {
    a.remove();
    b.remove();
  }
});

test('the blockstore directory is locked against a second process', async () => {
  const dir = tempDir('blocks-');
  try {
    const store = await openBlockStore({ dataDir: dir.path, sync: false });
    const script = `
      import { openBlockStore } from ${JSON.stringify(join(import.meta.dirname, '../../../../src/storage/blocks/index.ts'))};
      try { await openBlockStore({ dataDir: ${JSON.stringify(dir.path)} }); console.log('opened'); }
      catch (e) { console.log(e.code + ': ' + e.message); }`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.match(r.stdout, /LOCK_HELD: failed to initialize database: resource temporarily unavailable/);
    assert.match(
      r.stdout,
      new RegExp(`lock ${join(dir.path, 'blockstore', 'LOCK')} is held by process ${process.pid}`),
    );
    await store.close();
    const reopened = await openBlockStore({ dataDir: dir.path, sync: false });
    await reopened.close();
  } finally {
    dir.remove();
  }
});

test('truncateAbove/pruneBelow reject bad heights; a closed store refuses calls', async () => {
  const dir = tempDir('blocks-');
  try {
    const store = await openBlockStore({ dataDir: dir.path, sync: false });
    await assert.rejects(store.truncateAbove(-1), InvalidBlockDataError);
    await assert.rejects(store.pruneBelow(1.5), InvalidBlockDataError);
    await store.close();
    assert.throws(() => store.blockByHeight(1), BlockStoreClosedError);
    await assert.rejects(store.putBlock(chain(1)[0].block), BlockStoreClosedError);
  } finally {
    dir.remove();
  }
});

test('an empty block stores and reads back; the block bloom is the OR of the receipt blooms', async () => {
  const dir = tempDir('blocks-');
  try {
    const store = await openBlockStore({ dataDir: dir.path, sync: false });
    const empty = [...makeChain(1, 1, { ...shape, evmTxs: 0, cosmosTxs: 0 }, prng(8))][0];
    assert.equal(empty.block.txs.length, 0);
    await store.putBlock(empty.block);
    assert.deepEqual(store.blockByHeight(1), empty.block);
    assert.deepEqual(store.receiptsOfBlock(1), []);
    assert.deepEqual(store.cosmosResultsOfBlock(1), []);
    assert.deepEqual(store.blockBloom(1), new Uint8Array(256));
    assert.deepEqual(store.getLogs({ fromBlock: 1, toBlock: 1 }), { logs: [], limitExceeded: false });

    const next = [...makeChain(2, 1, { ...shape, evmTxs: 30, logsPerTx: 2 }, prng(9), empty.block.hash)][0];
    await store.putBlock(next.block, next.receipts, next.results);
    const or = new Uint8Array(256);
    for (const rc of next.receipts) rc.logsBloom.forEach((b, i) => (or[i] |= b));
    assert.ok(or.some((b) => b !== 0));
    assert.deepEqual(store.blockBloom(2), or);
    assert.equal(store.blockBloom(3), undefined);
    await store.close();
  } finally {
    dir.remove();
  }
});
