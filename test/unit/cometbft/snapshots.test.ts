import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SnapshotItem as SnapshotItemCodec } from 'cosmjs-types/cosmos/store/snapshots/v1/snapshot';
import {
  chunkMatches,
  encodeSnapshotItem,
  decodeSnapshotMetadata,
  encodeSnapshotMetadata,
  readSnapshotItems,
  SNAPSHOT_FORMAT,
  snapshotHash,
  SnapshotStore,
} from '../../../src/cometbft/snapshots.ts';
import { toHex } from '../../../src/primitives/bytes.ts';
import { CommitStore } from '../../../src/storage/sc/commit-store.ts';
import type { SnapshotItem } from '../../../src/storage/sc/snapshot-items.ts';
import { commitRandomBlock, memoryKV, rng, tempDir, type Model } from '../storage/sc/helpers.ts';

const STORES = ['acc', 'bank', 'evm', 'staking'];

/** A State Commit with `blocks` random blocks over every store (EVM rows in flatkv). */
async function filledStore(dir: string, blocks: number): Promise<CommitStore> {
  const sc = await CommitStore.open({ dir, stores: STORES, openKV: memoryKV() });
  const r = rng(7);
  const model: Model = new Map();
  for (let v = 1; v <= blocks; v++) await commitRandomBlock(sc, r, model, v, 40);
  return sc;
}

async function collect(items: AsyncIterable<SnapshotItem>): Promise<SnapshotItem[]> {
  const out: SnapshotItem[] = [];
  for await (const i of items) out.push(i);
  return out;
}

test('the hand-written item encoder writes what the generated protobuf encoder writes', () => {
  const b = (n: number, fill = 7) => new Uint8Array(n).fill(fill);
  const items: SnapshotItem[] = [
    { store: { name: 'bank' } },
    { iavl: { key: b(33), value: b(40), version: 12n, height: 0 } },
    { iavl: { key: b(1), value: new Uint8Array(0), version: 1n, height: 3 } },
    { iavl: { key: new Uint8Array(0), value: b(200), version: 0n, height: 0 } },
    { iavl: { key: b(130), value: b(70_000), version: 2n ** 40n, height: 200 } },
  ];
  for (const item of items)
    assert.equal(
      toHex(encodeSnapshotItem(item)),
      toHex(SnapshotItemCodec.encode(item).finish()),
      JSON.stringify(item, (_, v) =>
        typeof v === 'bigint' ? String(v) : v instanceof Uint8Array ? v.length : v,
      ),
    );
});

test('snapshot round trip: export → chunks on disk → items → import reproduces the app hash', async () => {
  const src = tempDir();
  const snaps = tempDir();
  const dst = tempDir();
  try {
    const sc = await filledStore(src.dir, 12);
    // small chunks, so the stream is cut into several and items straddle chunk boundaries
    const store = new SnapshotStore({ dir: snaps.dir, keepRecent: 2, chunkBytes: 4096 });
    const meta = await store.write(12, sc.appHash(), sc.export(12));
    assert.equal(meta.format, SNAPSHOT_FORMAT);
    assert.ok(meta.chunks > 1, `expected several chunks, got ${meta.chunks}`);
    assert.equal(meta.chunkHashes.length, meta.chunks);
    assert.ok(meta.size < meta.bytes, 'the stream is compressed');

    const [listed] = store.list();
    assert.equal(listed.height, 12);
    assert.equal(toHex(listed.appHash), toHex(sc.appHash()));
    // what ABCI advertises: metadata = the chunk hashes, hash = SHA-256 over them
    const metadata = encodeSnapshotMetadata(listed.chunkHashes);
    const hashes = decodeSnapshotMetadata(metadata, listed.chunks);
    assert.equal(toHex(snapshotHash(hashes)), toHex(snapshotHash(meta.chunkHashes)));
    const chunks = hashes.map((h, i) => {
      const c = store.chunk(12, SNAPSHOT_FORMAT, i)!;
      assert.ok(chunkMatches(c, h), `chunk ${i} matches its hash`);
      return c;
    });
    assert.equal(store.chunk(12, SNAPSHOT_FORMAT, listed.chunks), undefined, 'no chunk past the last');
    assert.equal(store.chunk(12, SNAPSHOT_FORMAT + 1, 0), undefined, 'no chunk of another format');

    const exported = await collect(sc.export(12));
    const read = await collect(readSnapshotItems(chunks));
    assert.equal(read.length, exported.length);
    assert.equal(read.length, meta.items);

    const fresh = await CommitStore.open({ dir: dst.dir, stores: STORES, openKV: memoryKV() });
    const imported = await fresh.import(12, readSnapshotItems(chunks));
    assert.equal(toHex(imported.appHash), toHex(sc.appHash()));
    await fresh.close();
    await sc.close();
  } finally {
    src.cleanup();
    snaps.cleanup();
    dst.cleanup();
  }
});

test('a snapshot written while later blocks commit holds the state of its own version', async () => {
  const src = tempDir();
  const snaps = tempDir();
  const dst = tempDir();
  try {
    const sc = await filledStore(src.dir, 10);
    const appHash = sc.appHash();
    const store = new SnapshotStore({ dir: snaps.dir, keepRecent: 2, chunkBytes: 4096 });
    // started as the node starts it (not awaited), then blocks 11..14 commit while it is written
    const writing = store.write(10, appHash, sc.export(10));
    const r = rng(99);
    const model: Model = new Map();
    for (let v = 11; v <= 14; v++) await commitRandomBlock(sc, r, model, v, 40);
    const meta = await writing;
    assert.notEqual(toHex(sc.appHash()), toHex(appHash));
    const chunks = meta.chunkHashes.map((_, i) => store.chunk(10, SNAPSHOT_FORMAT, i)!);
    const fresh = await CommitStore.open({ dir: dst.dir, stores: STORES, openKV: memoryKV() });
    assert.equal(toHex((await fresh.import(10, readSnapshotItems(chunks))).appHash), toHex(appHash));
    await fresh.close();
    await sc.close();
  } finally {
    src.cleanup();
    snaps.cleanup();
    dst.cleanup();
  }
});

test('flatkv exports a past version until a flush goes past it, then names what is available', async () => {
  const src = tempDir();
  try {
    const sc = await CommitStore.open({
      dir: src.dir,
      stores: STORES,
      openKV: memoryKV(),
      flatkvFlushInterval: 4,
    });
    const r = rng(5);
    const model: Model = new Map();
    const hashes: string[] = [];
    const commitBlock = async (v: number) => {
      hashes[v] = toHex(await commitRandomBlock(sc, r, model, v, 20));
    };
    for (let v = 1; v <= 5; v++) await commitBlock(v);
    // version 5 is in the memory layer: exported after version 6 commits, it is still version 5
    await commitBlock(6);
    const items = await collect(sc.export(5));
    const dst = tempDir();
    const fresh = await CommitStore.open({ dir: dst.dir, stores: STORES, openKV: memoryKV() });
    assert.equal(toHex((await fresh.import(5, items)).appHash), hashes[5]);
    await fresh.close();
    dst.cleanup();
    // once flushes have written later versions, version 5 is gone from flatkv
    for (let v = 7; v <= 12; v++) await commitBlock(v);
    await assert.rejects(collect(sc.export(5)), /state commit version 5 is not available/);
    await sc.close();
  } finally {
    src.cleanup();
  }
});

test('a corrupted chunk fails its hash check; a truncated stream is refused by the reader', async () => {
  const src = tempDir();
  const snaps = tempDir();
  try {
    const sc = await filledStore(src.dir, 6);
    const store = new SnapshotStore({ dir: snaps.dir, keepRecent: 2, chunkBytes: 2048 });
    const meta = await store.write(6, sc.appHash(), sc.export(6));
    assert.ok(meta.chunks >= 2);
    const file = join(snaps.dir, '6', 'chunk-000001');
    const valid = readFileSync(file);
    const bytes = Buffer.from(valid);
    bytes[100] ^= 0xff;
    writeFileSync(file, bytes);
    const corrupted = store.chunk(6, SNAPSHOT_FORMAT, 1)!;
    assert.equal(chunkMatches(corrupted, meta.chunkHashes[1]), false);
    assert.equal(chunkMatches(store.chunk(6, SNAPSHOT_FORMAT, 0)!, meta.chunkHashes[0]), true);

    // without its last chunk the compressed stream ends early: a clear error, not a partial state
    writeFileSync(file, valid);
    const allButLast = meta.chunkHashes.slice(0, -1).map((_, i) => store.chunk(6, SNAPSHOT_FORMAT, i)!);
    await assert.rejects(collect(readSnapshotItems(allButLast)), /snapshot stream/);

    assert.throws(
      () => decodeSnapshotMetadata(new Uint8Array(33), 1),
      /snapshot metadata is 33 bytes; 1 chunk hashes need 32/,
    );
    await sc.close();
  } finally {
    src.cleanup();
    snaps.cleanup();
  }
});

test('keep-recent deletes older snapshots; an interrupted write leaves no listed snapshot', async () => {
  const src = tempDir();
  const snaps = tempDir();
  try {
    const sc = await filledStore(src.dir, 3);
    const store = new SnapshotStore({ dir: snaps.dir, keepRecent: 2 });
    for (const h of [10, 20, 30]) await store.write(h, sc.appHash(), sc.export(3));
    assert.deepEqual(
      store.list().map((m) => m.height),
      [30, 20],
    );
    assert.equal(existsSync(join(snaps.dir, '10')), false);

    async function* failing(): AsyncGenerator<SnapshotItem> {
      yield { store: { name: 'acc' } };
      throw new Error('export interrupted');
    }
    await assert.rejects(store.write(40, sc.appHash(), failing()), /export interrupted/);
    assert.deepEqual(
      store.list().map((m) => m.height),
      [30, 20],
    );
    assert.deepEqual(
      readdirSync(snaps.dir).sort(),
      ['20', '30'],
      'the temp directory of the failed write is gone',
    );
    await sc.close();
  } finally {
    src.cleanup();
    snaps.cleanup();
  }
});

test('a snapshot offered to peers or being served outlives keep-recent for the quiet period; at most two are kept for peers', async () => {
  const src = tempDir();
  const snaps = tempDir();
  try {
    const sc = await filledStore(src.dir, 2);
    let now = 1_000_000;
    const store = new SnapshotStore({ dir: snaps.dir, keepRecent: 1, pinQuietMs: 60_000, now: () => now });
    const heights = () => store.list().map((m) => m.height);
    const write = (h: number) => store.write(h, sc.appHash(), sc.export(2));

    // offered (ListSnapshots) then superseded: kept while a peer may still fetch it
    await write(10);
    store.noteOffered([10]);
    await write(20);
    await write(30);
    assert.deepEqual(heights(), [30, 10]);
    assert.deepEqual(store.pinned(), [10]);
    // a chunk served renews the pin; quiet for the whole period, it goes with the next prune
    now += 50_000;
    store.noteServed(10);
    now += 50_000;
    await write(40);
    assert.deepEqual(heights(), [40, 10]);
    now += 60_000;
    await write(50);
    assert.deepEqual(heights(), [50]);

    // three restores under way beyond keep-recent: the two served most recently are kept
    for (const h of [60, 70, 80]) {
      await write(h);
      store.noteServed(h);
      now += 1_000;
    }
    await write(90);
    assert.deepEqual(heights(), [90, 80, 70]);
    // a restore under way outranks a snapshot only offered
    store.noteOffered([90]);
    now += 1_000;
    await write(100);
    await write(110);
    assert.deepEqual(heights(), [110, 80, 70]);
    // a pin names a height, not whatever is on disk: a deleted snapshot pins nothing
    store.delete(80);
    store.noteServed(80);
    assert.deepEqual(store.pinned(), [70]);
    await sc.close();
  } finally {
    src.cleanup();
    snaps.cleanup();
  }
});
