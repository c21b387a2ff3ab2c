/**
 * Data directories written before the shared write-ahead log (test/fixtures/legacy-wal, made by the
 * old code) still open: their segments are read in their old framing, and new records go to a new
 * segment in the current format.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { toHex } from '../../../../src/primitives/bytes.ts';
import { MemoryKVStore } from '../../../../src/storage/kv/memory.ts';
import { Changelog as SCChangelog } from '../../../../src/storage/sc/changelog.ts';
import { FlatKV } from '../../../../src/storage/sc/flatkv/store.ts';
import { MemIavlDB } from '../../../../src/storage/sc/memiavl/db.ts';
import { Changelog as SSChangelog } from '../../../../src/storage/ss/changelog.ts';
import type { StoreChange } from '../../../../src/storage/ss/types.ts';
import { SEGMENT_HEADER } from '../../../../src/storage/wal/segmented-log.ts';

const FIXTURE = join(import.meta.dirname, '../../../fixtures/legacy-wal');
const expected = JSON.parse(readFileSync(join(FIXTURE, 'expected.json'), 'utf8')) as {
  memiavl: string[];
  flatkv: string[];
};
const b = (...xs: number[]): Uint8Array => Uint8Array.from(xs);

function copyOf(name: string): { dir: string; remove: () => void } {
  const root = mkdtempSync(join(tmpdir(), 'legacy-wal-'));
  cpSync(join(FIXTURE, name), join(root, name), { recursive: true });
  return { dir: join(root, name), remove: () => rmSync(root, { recursive: true, force: true }) };
}

function startsWithHeader(path: string): boolean {
  const head = readFileSync(path).subarray(0, SEGMENT_HEADER.length);
  return toHex(head) === toHex(SEGMENT_HEADER);
}

test('a State Store changelog of the old format opens, and appends go to a segment of the current one', async () => {
  const { dir, remove } = copyOf('ss');
  try {
    const legacySegment = join(dir, '00000000000000000001.log');
    const legacyBytes = readFileSync(legacySegment);
    assert.equal(startsWithHeader(legacySegment), false);
    const log = SSChangelog.open(dir, { keep: 1000 });
    assert.equal(log.lastVersion, 3);
    const changesOf = (v: number): StoreChange[] => [
      { store: 'bank', key: b(v, 0), value: b(v, 1, 2) },
      { store: 'evm', key: b(0x0a, v), value: null },
      { store: 'acc', key: b(0), value: new Uint8Array(0) },
    ];
    assert.deepEqual(
      [...log.recordsAfter(0)],
      [1, 2, 3].map((version) => ({ version, changes: changesOf(version) })),
    );
    await log.append(4, changesOf(4));
    log.close();
    assert.deepEqual(readdirSync(dir).sort(), ['00000000000000000001.log', '00000000000000000004.log']);
    assert.ok(startsWithHeader(join(dir, '00000000000000000004.log')));
    assert.deepEqual(readFileSync(legacySegment), legacyBytes, 'the old segment is left as it was');
    const again = SSChangelog.open(dir, { keep: 1000 });
    assert.deepEqual(
      [...again.recordsAfter(0)].map((r) => r.version),
      [1, 2, 3, 4],
    );
    assert.deepEqual([...again.recordsAfter(3)][0].changes, changesOf(4));
    again.close();
  } finally {
    remove();
  }
});

test('a memiavl directory whose changelog has the old format replays to the same hashes and keeps committing', async () => {
  const { dir, remove } = copyOf('memiavl');
  const hashes = (stores: { name: string; hash: Uint8Array }[]): string =>
    stores.map((s) => `${s.name}:${toHex(s.hash)}`).join(',');
  try {
    const db = await MemIavlDB.open({ dir, initialStores: ['acc', 'bank'], snapshotInterval: 1000 });
    assert.equal(db.version, 3);
    assert.equal(hashes(db.committedHashes()), expected.memiavl[2]);
    assert.deepEqual(db.get('acc', b(1, 2)), b(2, 2));
    assert.equal(db.get('bank', b(2, 1)), undefined, 'deleted at version 3');
    db.applyChangeSets([{ store: 'acc', pairs: [{ key: b(1, 4), value: b(4, 4) }] }]);
    const committed = await db.commit();
    assert.equal(committed.version, 4);
    const fourth = hashes(committed.stores);
    await db.close();
    const reopened = await MemIavlDB.open({ dir, initialStores: ['acc', 'bank'], snapshotInterval: 1000 });
    assert.equal(reopened.version, 4);
    assert.equal(hashes(reopened.committedHashes()), fourth);
    await reopened.close();
  } finally {
    remove();
  }
});

test("flatkv replays an old-format log to the roots it logged; the next block's record uses the current format", async () => {
  const { dir, remove } = copyOf('flatkv-wal');
  try {
    const fk = await FlatKV.open(new MemoryKVStore(), { walDir: dir, flushInterval: 1000, hashWorkers: 0 });
    assert.equal(fk.version, 3);
    assert.equal(toHex(fk.committedHash()), expected.flatkv[2]);
    assert.equal(toHex(fk.rootAt(1)), expected.flatkv[0]);
    assert.equal(toHex(fk.rootAt(2)), expected.flatkv[1]);
    const slot = Uint8Array.of(0x03, ...new Uint8Array(20).fill(2), ...new Uint8Array(32).fill(2));
    assert.deepEqual(fk.get(slot), new Uint8Array(32).fill(0x42));
    fk.applyPairs([
      { key: Uint8Array.of(0x0a, ...new Uint8Array(20).fill(9)), value: b(0, 0, 0, 0, 0, 0, 0, 9) },
    ]);
    await fk.commit(4);
    const segments = readdirSync(dir).sort();
    assert.deepEqual(segments, ['00000000000000000001.wal', '00000000000000000004.wal']);
    assert.ok(startsWithHeader(join(dir, segments[1])));
    // read while the memory layer still holds all four blocks (close would flush and drop the log)
    const log = SCChangelog.open(dir);
    assert.deepEqual(
      [...log.read(1, 4)].map((e) => e.version),
      [1, 2, 3, 4],
    );
    log.close();
    await fk.close();
  } finally {
    remove();
  }
});
