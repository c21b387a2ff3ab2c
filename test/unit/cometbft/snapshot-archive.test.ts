import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  exportSnapshotArchive,
  openSnapshotArchive,
  restoreSnapshotArchive,
} from '../../../src/cometbft/snapshot-archive.ts';
import { readSnapshotItems, snapshotHash, SnapshotStore } from '../../../src/cometbft/snapshots.ts';
import { toHex } from '../../../src/primitives/bytes.ts';
import type { SnapshotItem } from '../../../src/storage/sc/snapshot-items.ts';
import { tempDir } from '../storage/sc/helpers.ts';

/** Items of random (incompressible) values: a few KiB compressed, several 1 KiB chunks. */
async function* items(n: number): AsyncGenerator<SnapshotItem> {
  yield { store: { name: 'bank' } };
  for (let i = 0; i < n; i++)
    yield { iavl: { key: randomBytes(20), value: randomBytes(40), version: 3n, height: 0 } };
}

async function storeWithSnapshot(t: { after(fn: () => void): void }, height = 12) {
  const d = tempDir('snap-archive-');
  t.after(d.cleanup);
  const store = new SnapshotStore({ dir: join(d.dir, 'snapshots'), keepRecent: 5, chunkBytes: 1024 });
  const meta = await store.write(height, new Uint8Array(32).fill(9), items(100));
  return { store, meta, dir: d.dir };
}

function emptyStore(t: { after(fn: () => void): void }) {
  const d = tempDir('snap-archive-');
  t.after(d.cleanup);
  return { store: new SnapshotStore({ dir: join(d.dir, 'snapshots'), keepRecent: 5 }), dir: d.dir };
}

test('export then restore into another store: same metadata, same chunks, same offered hash', async (t) => {
  const { store, meta, dir } = await storeWithSnapshot(t);
  assert.ok(meta.chunks >= 5, `${meta.chunks} chunks`);
  const file = join(dir, 'snap.bin');
  const out = await exportSnapshotArchive(store, 12, file);
  assert.equal(toHex(out.hash), toHex(snapshotHash(meta.chunkHashes)));

  const target = emptyStore(t);
  const back = await restoreSnapshotArchive(target.store, file);
  assert.equal(toHex(back.hash), toHex(out.hash));
  assert.deepEqual(target.store.list(), store.list());
  for (let i = 0; i < meta.chunks; i++)
    assert.deepEqual(target.store.chunk(12, 1, i), store.chunk(12, 1, i), `chunk ${i}`);
  // nothing but the snapshot is left behind in the store
  assert.deepEqual(readdirSync(target.store.dir), ['12']);
  let n = 0;
  for await (const _ of readSnapshotItems(
    Array.from({ length: meta.chunks }, (_, i) => target.store.chunk(12, 1, i)!),
  ))
    n++;
  assert.equal(n, meta.items);
});

test('a corrupted chunk in an archive is refused naming the chunk, and nothing is installed', async (t) => {
  const { store, meta, dir } = await storeWithSnapshot(t);
  const file = join(dir, 'snap.bin');
  await exportSnapshotArchive(store, 12, file);
  // flip one byte inside chunk 2: past the header and two chunks (each 4 bytes of length + 1024)
  const bytes = readFileSync(file);
  const headerEnd = 16 + bytes.readUInt32BE(12);
  bytes[headerEnd + 2 * (4 + 1024) + 4 + 100] ^= 0xff;
  writeFileSync(file, bytes);
  const target = emptyStore(t);
  await assert.rejects(
    restoreSnapshotArchive(target.store, file),
    new RegExp(`chunk 2 of ${meta.chunks} does not match its SHA-256 in the metadata \\(corrupted\\)`),
  );
  assert.deepEqual(target.store.list(), []);
  assert.deepEqual(readdirSync(target.store.dir), []);
});

test('damaged archives: truncated, trailing bytes, not an archive, metadata whose hash disagrees', async (t) => {
  const { store, dir } = await storeWithSnapshot(t);
  const file = join(dir, 'snap.bin');
  await exportSnapshotArchive(store, 12, file);
  const good = readFileSync(file);
  const target = emptyStore(t);
  const tryRestore = (bytes: Uint8Array) => {
    writeFileSync(join(dir, 'bad.bin'), bytes);
    return restoreSnapshotArchive(target.store, join(dir, 'bad.bin'));
  };
  await assert.rejects(
    tryRestore(good.subarray(0, good.length - 10)),
    /the file ends inside chunk \d+ \(truncated\)/,
  );
  await assert.rejects(tryRestore(Buffer.concat([good, Buffer.from('xx')])), /2 bytes follow the last chunk/);
  await assert.rejects(
    tryRestore(Buffer.from('hello, world, not a snapshot')),
    /not a chaind snapshot archive/,
  );
  // the header's snapshot hash no longer matches its chunk hashes
  const headerLen = good.readUInt32BE(12);
  const header = JSON.parse(good.subarray(16, 16 + headerLen).toString('utf8'));
  header.chunkHashes[0] = '00'.repeat(32);
  const h = Buffer.from(JSON.stringify(header));
  const len = Buffer.alloc(4);
  len.writeUInt32BE(h.length);
  await assert.rejects(
    tryRestore(Buffer.concat([good.subarray(0, 12), len, h, good.subarray(16 + headerLen)])),
    /is not the hash of its chunk hashes: the metadata is damaged/,
  );
  await assert.rejects(
    restoreSnapshotArchive(target.store, join(dir, 'missing.bin')),
    /cannot open snapshot archive .*missing\.bin: ENOENT/,
  );
  assert.deepEqual(target.store.list(), []);
});

test('restore refuses an existing height unless forced; export refuses an existing file unless forced', async (t) => {
  const { store, dir } = await storeWithSnapshot(t);
  const file = join(dir, 'snap.bin');
  await exportSnapshotArchive(store, 12, file);
  await assert.rejects(
    exportSnapshotArchive(store, 12, file),
    /snap\.bin already exists \(--force replaces it\)/,
  );
  await exportSnapshotArchive(store, 12, file, { force: true });
  await assert.rejects(exportSnapshotArchive(store, 13, join(dir, 'x.bin')), /no snapshot of height 13 in /);
  await assert.rejects(
    exportSnapshotArchive(store, 12, join(dir, 'no-such-dir', 'x.bin')),
    /cannot write .*no-such-dir\/x\.bin: ENOENT/,
  );
  // another snapshot of the same height, different content
  const other = await storeWithSnapshot(t);
  const before = other.store.meta(12)!;
  await assert.rejects(
    restoreSnapshotArchive(other.store, file),
    /a snapshot of height 12 already exists in .* \(--force replaces it\)/,
  );
  assert.deepEqual(other.store.meta(12), before);
  await restoreSnapshotArchive(other.store, file, { force: true });
  assert.deepEqual(other.store.meta(12), store.meta(12));
});

test('export refuses a stored chunk that no longer matches its hash, naming it; delete removes one snapshot', async (t) => {
  const { store, dir } = await storeWithSnapshot(t);
  appendFileSync(store.chunkPath(12, 3), 'x');
  const file = join(dir, 'snap.bin');
  await assert.rejects(
    exportSnapshotArchive(store, 12, file),
    /chunk 3 of the snapshot of height 12 does not match its SHA-256 in metadata\.json/,
  );
  assert.equal(existsSync(file), false);
  assert.deepEqual(
    readdirSync(dir).filter((f) => f.includes('snap.bin')),
    [],
  );
  await store.write(20, new Uint8Array(32), items(3));
  assert.equal(store.delete(12), true);
  assert.equal(store.delete(12), false);
  assert.deepEqual(
    store.list().map((m) => m.height),
    [20],
  );
});

test('an opened archive yields its chunks in order, each checked', async (t) => {
  const { store, meta, dir } = await storeWithSnapshot(t);
  const file = join(dir, 'snap.bin');
  await exportSnapshotArchive(store, 12, file);
  const a = await openSnapshotArchive(file);
  try {
    assert.deepEqual(a.meta, meta);
    let i = 0;
    for await (const c of a.chunks()) assert.deepEqual(c, store.chunk(12, 1, i++));
    assert.equal(i, meta.chunks);
  } finally {
    await a.close();
  }
});
