import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openLmdbStore } from '../../../../src/storage/kv/lmdb.ts';
import {
  AddressIndexBuilder,
  APPEARANCE,
  appearanceKey,
  collectAddressIndexDeletes,
  decodeAppearance,
  P_ADDRESS_INDEX,
} from '../../../../src/storage/blocks/address-index.ts';
import { openBlockStore } from '../../../../src/storage/blocks/store.ts';
import type { TxAppearances } from '../../../../src/storage/blocks/types.ts';
import { filled, makeChain, prng, tempDir } from './fixtures.ts';

const shape = {
  evmTxs: 3,
  cosmosTxs: 1,
  logsPerTx: 1,
  addresses: [filled(20, 201)],
  topics: [filled(32, 2)],
};

test('address index keys: one address is one key range in height, then tx order; values hold flags and nonce', () => {
  const a = filled(20, 7);
  const keys = [
    appearanceKey(a, 2, 0),
    appearanceKey(a, 1, 300),
    appearanceKey(a, 256, 1),
    appearanceKey(a, 1, 2),
    appearanceKey(filled(20, 8), 0, 0),
  ];
  const sorted = [...keys].sort((x, y) => Buffer.compare(x, y));
  assert.equal(keys[0][0], P_ADDRESS_INDEX);
  assert.equal(keys[0].length, 33);
  const heights = sorted
    .filter((k) => Buffer.compare(k.subarray(1, 21), a) === 0)
    .map((k) => decodeAppearance(k, Uint8Array.of(1)));
  assert.deepEqual(
    heights.map((x) => [x.height, x.txIndex]),
    [
      [1, 2],
      [1, 300],
      [2, 0],
      [256, 1],
    ],
  );
  const far = appearanceKey(a, 2 ** 40 + 5, 7);
  assert.deepEqual(decodeAppearance(far, Uint8Array.of(2)), { height: 2 ** 40 + 5, txIndex: 7, flags: 2 });
  const b = new AddressIndexBuilder();
  b.add(a, 5, 0, APPEARANCE.sender, 300n);
  b.add(a, 5, 0, APPEARANCE.internal);
  b.add(a, 5, 1, APPEARANCE.log);
  const ops = b.puts(5);
  assert.equal(ops.length, 3, 'two entries and the height list');
  const first = ops[0] as { key: Uint8Array; value: Uint8Array };
  assert.deepEqual(decodeAppearance(first.key, first.value), {
    height: 5,
    txIndex: 0,
    flags: APPEARANCE.sender | APPEARANCE.internal,
    nonce: 300n,
  });
  const list = ops[2] as { key: Uint8Array; value: Uint8Array };
  assert.deepEqual(list.value, a);
  assert.throws(() => decodeAppearance(first.key, new Uint8Array(0)), /address index record is unreadable/);
});

test('address index removal deletes exactly the height it names', async () => {
  const dir = tempDir('addr-rm-');
  const kv = await openLmdbStore(dir.path, { sync: false });
  try {
    const a = filled(20, 1);
    const c = filled(20, 2);
    for (const h of [4, 5, 6]) {
      const b = new AddressIndexBuilder();
      b.add(a, h, 0, APPEARANCE.sender, BigInt(h));
      b.add(c, h, 1, APPEARANCE.internal);
      await kv.write(b.puts(h));
    }
    const ops: Parameters<typeof kv.write>[0] = [];
    collectAddressIndexDeletes(kv as never, 5, ops);
    assert.equal(ops.length, 3);
    await kv.write(ops);
    const left = [
      ...kv.iterateSync!({ gte: Uint8Array.of(P_ADDRESS_INDEX), lt: Uint8Array.of(P_ADDRESS_INDEX + 1) }),
    ];
    assert.deepEqual(
      left.map(([k, v]) => decodeAppearance(k, v).height),
      [4, 6, 4, 6],
    );
    const none: typeof ops = [];
    collectAddressIndexDeletes(kv as never, 5, none);
    assert.equal(none.length, 0, 'nothing left for the removed height');
  } finally {
    await kv.close();
    dir.remove();
  }
});

test('block store: pages before/after never split a block, sender nonces, rollback and pruning', async () => {
  const dir = tempDir('addr-store-');
  try {
    const store = await openBlockStore({ dataDir: dir.path, sync: false });
    const blocks = [...makeChain(1, 12, shape, prng(9))];
    const internal = filled(20, 99);
    const factoryChild = filled(20, 98);
    for (const [i, c] of blocks.entries()) {
      const seen: TxAppearances[] = c.receipts.map((rc) => ({
        nonce: BigInt(i * 3 + rc.txIndex),
        created: rc.txIndex === 1 ? [factoryChild] : [],
        internal: rc.txIndex === 2 ? [internal] : [],
      }));
      // every receipt of this block comes from one sender, with rising nonces
      for (const rc of c.receipts) rc.from = filled(20, 500);
      await store.putBlock(c.block, c.receipts, c.results, seen);
    }
    assert.equal(store.addressesIndexedSince(), 1);
    const sender = filled(20, 500);

    const before = store.appearancesPage(sender, 'before', 13, 4);
    assert.deepEqual(
      before.txs.map((t) => [t.height, t.txIndex]),
      [
        [12, 2],
        [12, 1],
        [12, 0],
        [11, 2],
        [11, 1],
        [11, 0],
      ],
      'newest first, the last block complete',
    );
    assert.equal(before.reachedEnd, false);
    const after = store.appearancesPage(sender, 'after', 0, 2);
    assert.deepEqual(
      after.txs.map((t) => t.height),
      [1, 1, 1],
    );
    const tail = store.appearancesPage(sender, 'before', 2, 100);
    assert.equal(tail.reachedEnd, true);
    assert.equal(tail.txs.length, 3);
    assert.ok(before.txs.every((t) => t.flags & APPEARANCE.sender));

    const inner = store.appearancesPage(internal, 'after', 0, 100);
    assert.deepEqual(
      inner.txs.map((t) => [t.height, t.txIndex, t.flags]),
      blocks.map((_, i) => [i + 1, 2, APPEARANCE.internal]),
    );
    const created = store.appearancesWith(factoryChild, APPEARANCE.created, 2);
    assert.deepEqual(
      created.map((c) => [c.height, c.txIndex]),
      [
        [1, 1],
        [2, 1],
      ],
    );

    for (let n = 0n; n < 36n; n++) {
      const hit = store.txBySenderAndNonce(sender, n);
      assert.deepEqual([hit?.height, hit?.txIndex], [Number(n / 3n) + 1, Number(n % 3n)], `nonce ${n}`);
    }
    assert.equal(store.txBySenderAndNonce(sender, 36n), undefined);
    assert.equal(store.txBySenderAndNonce(filled(20, 501), 0n), undefined);

    await store.truncateAbove(10);
    assert.equal(
      store.appearancesPage(internal, 'after', 0, 100).txs.length,
      10,
      'rolled back heights are gone',
    );
    assert.equal(store.txBySenderAndNonce(sender, 30n), undefined);
    await store.pruneBelow(4);
    assert.equal(store.addressesIndexedSince(), 4, 'pruning raises the first indexed height');
    assert.deepEqual(
      store.appearancesPage(internal, 'after', 0, 100).txs.map((t) => t.height),
      [4, 5, 6, 7, 8, 9, 10],
    );
    assert.equal(store.appearancesWith(factoryChild, APPEARANCE.created, 1)[0].height, 4);
    await store.truncateAbove(0);
    assert.equal(store.addressesIndexedSince(), undefined);
    await store.close();
  } finally {
    dir.remove();
  }
});

test('a state-synced store (no blocks below its snapshot) indexes from its first stored height', async () => {
  const dir = tempDir('addr-start-');
  try {
    const store = await openBlockStore({ dataDir: dir.path, sync: false });
    await store.startAfter(40);
    const [c] = [...makeChain(41, 1, shape, prng(2))];
    await store.putBlock(c.block, c.receipts, c.results);
    assert.equal(store.addressesIndexedSince(), 41);
    assert.equal(
      store.appearancesPage(c.receipts[0].from, 'after', 0, 10).txs[0].flags & APPEARANCE.sender,
      APPEARANCE.sender,
      'receipt addresses are indexed without what execution saw',
    );
    await store.close();
  } finally {
    dir.remove();
  }
});
