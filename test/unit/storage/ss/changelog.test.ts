import assert from 'node:assert/strict';
import { appendFileSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Changelog, SEGMENT_RECORDS } from '../../../../src/storage/ss/changelog.ts';
import { SSChangelogCorruptError } from '../../../../src/storage/ss/errors.ts';
import type { StoreChange } from '../../../../src/storage/ss/types.ts';
import { tempDir } from './helpers.ts';

const changesOf = (v: number): StoreChange[] => [
  { store: 'bank', key: Uint8Array.of(v & 0xff, 0), value: Uint8Array.of(v & 0xff, 1, 2) },
  { store: 'evm', key: Uint8Array.of(0x0a, v & 0xff), value: null },
  { store: 'acc', key: Uint8Array.of(0), value: new Uint8Array(0) },
];

function segmentFile(dir: string): string {
  const files = readdirSync(dir).filter((f) => f.endsWith('.log'));
  return join(dir, files.sort()[files.length - 1]);
}

test('records round-trip through close and reopen, in order, deletes and empty values included', async () => {
  const dir = tempDir('ss-changelog-');
  try {
    const log = Changelog.open(dir.path, { keep: 1000, sync: true });
    for (let v = 1; v <= 5; v++) await log.append(v, changesOf(v));
    await assert.rejects(log.append(5, []), /not above the last record/);
    log.close();
    const again = Changelog.open(dir.path, { keep: 1000 });
    assert.equal(again.lastVersion, 5);
    const records = [...again.recordsAfter(2)];
    assert.deepEqual(
      records.map((r) => r.version),
      [3, 4, 5],
    );
    assert.deepEqual(records[0].changes, changesOf(3));
    await again.append(6, []);
    assert.deepEqual([...again.recordsAfter(5)], [{ version: 6, changes: [] }]);
    again.close();
  } finally {
    dir.remove();
  }
});

test('a torn last record (cut mid-append) is dropped and appends continue after it', async () => {
  const dir = tempDir('ss-changelog-');
  try {
    const log = Changelog.open(dir.path, { keep: 1000 });
    for (let v = 1; v <= 3; v++) await log.append(v, changesOf(v));
    log.close();
    const file = segmentFile(dir.path);
    const size = statSync(file).size;
    truncateSync(file, size - 5); // the third record lost its last bytes
    const reopened = Changelog.open(dir.path, { keep: 1000 });
    assert.equal(reopened.lastVersion, 2);
    assert.ok(statSync(file).size < size - 5, 'the torn bytes are removed from the file');
    await reopened.append(3, changesOf(33));
    reopened.close();
    const records = [...Changelog.open(dir.path, { keep: 1000 }).recordsAfter(0)];
    assert.deepEqual(
      records.map((r) => r.version),
      [1, 2, 3],
    );
    assert.deepEqual(records[2].changes, changesOf(33));
  } finally {
    dir.remove();
  }
});

test('a last record whose checksum fails is dropped; a bad record before others is corruption', async () => {
  const dir = tempDir('ss-changelog-');
  try {
    const log = Changelog.open(dir.path, { keep: 1000 });
    for (let v = 1; v <= 3; v++) await log.append(v, changesOf(v));
    log.close();
    const file = segmentFile(dir.path);
    const pristine = readFileSync(file);
    // Flip a byte inside the last record's payload: torn write, dropped.
    const lastFlipped = Buffer.from(pristine);
    lastFlipped[lastFlipped.length - 2] ^= 0xff;
    writeFileSync(file, lastFlipped);
    assert.equal(Changelog.open(dir.path, { keep: 1000 }).lastVersion, 2);
    // Flip a byte inside the first record: records follow it, so this is not a torn append.
    const firstFlipped = Buffer.from(pristine);
    firstFlipped[20] ^= 0xff;
    writeFileSync(file, firstFlipped);
    assert.throws(() => Changelog.open(dir.path, { keep: 1000 }), SSChangelogCorruptError);
    // Garbage appended after valid records (a header promising more than was written) is torn.
    writeFileSync(file, pristine);
    appendFileSync(file, Buffer.from([0, 0, 1, 0, 9, 9]));
    assert.equal(Changelog.open(dir.path, { keep: 1000 }).lastVersion, 3);
  } finally {
    dir.remove();
  }
});

test('truncation removes applied segments but keeps at least `keep` records', async () => {
  const dir = tempDir('ss-changelog-');
  try {
    const log = Changelog.open(dir.path, { keep: 1200, sync: false, segmentRecords: SEGMENT_RECORDS });
    const total = SEGMENT_RECORDS * 3 + 10;
    for (let v = 1; v <= total; v++) await log.append(v, []);
    log.truncate(0); // nothing applied: nothing removed
    assert.equal(log.recordCount, total);
    log.truncate(1500); // only the first segment is entirely applied
    assert.equal(log.recordCount, total - SEGMENT_RECORDS);
    log.truncate(total); // all applied: keep the newest segments holding >= 1200 records
    assert.ok(log.recordCount >= 1200, `kept ${log.recordCount}`);
    assert.ok(log.recordCount < 1200 + SEGMENT_RECORDS);
    assert.equal([...log.recordsAfter(0)][0].version, total - log.recordCount + 1);
    log.close();
    const again = Changelog.open(dir.path, { keep: 1200 });
    assert.equal(again.recordCount, log.recordCount);
    assert.equal(again.lastVersion, total);
    again.close();
  } finally {
    dir.remove();
  }
});

test('a small `keep` (ss-keep-recent) keeps about that many applied records; unapplied ones always stay; 0 keeps all', async () => {
  const dir = tempDir('ss-changelog-');
  try {
    const log = Changelog.open(dir.path, { keep: 20, sync: false }); // segments of 2 records
    for (let v = 1; v <= 100; v++) await log.append(v, changesOf(v));
    log.truncate(30); // only versions <= 30 are in the database: 70 unapplied records stay
    assert.deepEqual([...log.recordsAfter(0)][0].version, 31);
    log.truncate(100);
    assert.ok(log.recordCount >= 20 && log.recordCount <= 22, `kept ${log.recordCount}`);
    assert.equal(log.lastVersion, 100);
    log.close();
    const again = Changelog.open(dir.path, { keep: 20 });
    assert.deepEqual(
      [...again.recordsAfter(0)].map((r) => r.version),
      Array.from({ length: again.recordCount }, (_, i) => 101 - again.recordCount + i),
    );
    again.close();

    const all = Changelog.open(join(dir.path, 'all'), { keep: 0, sync: false });
    for (let v = 1; v <= 2500; v++) await all.append(v, []);
    all.truncate(2500);
    assert.equal(all.recordCount, 2500, 'keep 0 (ss-keep-recent = 0: all history) removes nothing');
    all.close();
  } finally {
    dir.remove();
  }
});

test('reset drops every record and appends start over', async () => {
  const dir = tempDir('ss-changelog-');
  try {
    const log = Changelog.open(dir.path, { keep: 1000 });
    for (let v = 1; v <= 5; v++) await log.append(v, changesOf(v));
    log.reset();
    assert.equal(log.recordCount, 0);
    await log.append(3, changesOf(3));
    log.close();
    const again = Changelog.open(dir.path, { keep: 1000 });
    assert.deepEqual(
      [...again.recordsAfter(0)].map((r) => r.version),
      [3],
    );
    again.close();
  } finally {
    dir.remove();
  }
});
