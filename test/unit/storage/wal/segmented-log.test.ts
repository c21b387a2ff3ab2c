import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { SEGMENT_HEADER, SegmentedLog, type LogFormat } from '../../../../src/storage/wal/segmented-log.ts';

class TestCorrupt extends Error {}

/** Payload = one version byte, then anything. */
const FORMAT: LogFormat = {
  suffix: '.log',
  legacyByteOrder: 'big',
  versionOf: (p) => p[0],
  torn: 'final-record',
  order: 'increasing',
  corrupt: (path, offset, reason) => new TestCorrupt(`${path} @${offset}: ${reason}`),
};

function withDir(fn: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'segmented-log-'));
  try {
    fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a segment written by a newer format is refused, not read or cut', () => {
  withDir((dir) => {
    const log = SegmentedLog.open(dir, FORMAT, { sync: false });
    log.appendSync(1, Uint8Array.of(1, 7));
    log.close();
    const file = join(dir, '00000000000000000001.log');
    const bytes = readFileSync(file);
    bytes[4] = 2;
    writeFileSync(file, bytes);
    assert.throws(() => SegmentedLog.open(dir, FORMAT, { sync: false }), TestCorrupt);
    assert.deepEqual(readFileSync(file), bytes);
  });
});

test('a segment whose header was cut short holds no record and takes the next append', () => {
  withDir((dir) => {
    writeFileSync(join(dir, '00000000000000000005.log'), SEGMENT_HEADER.subarray(0, 3));
    const log = SegmentedLog.open(dir, FORMAT, { sync: false });
    assert.equal(log.lastVersion, undefined);
    log.appendSync(5, Uint8Array.of(5, 1));
    log.close();
    const again = SegmentedLog.open(dir, FORMAT, { sync: false });
    assert.deepEqual(
      [...again.records()].map((r) => [r.version, [...r.payload]]),
      [[5, [5, 1]]],
    );
    again.close();
  });
});

test('truncateAfter cuts a segment after the last kept record; appends continue in that segment', () => {
  withDir((dir) => {
    const log = SegmentedLog.open(dir, FORMAT, { sync: false });
    for (let v = 1; v <= 3; v++) log.appendSync(v, Uint8Array.of(v));
    log.truncateAfter(1);
    assert.equal(log.lastVersion, 1);
    log.appendSync(2, Uint8Array.of(2, 9));
    log.close();
    const again = SegmentedLog.open(dir, FORMAT, { sync: false });
    assert.equal(again.segments.length, 1);
    assert.deepEqual(
      [...again.records()].map((r) => [...r.payload]),
      [[1], [2, 9]],
    );
    again.close();
  });
});
