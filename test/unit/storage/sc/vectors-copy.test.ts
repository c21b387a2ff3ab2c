import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COPY_DIR, SHARED_DIR } from './vectors.ts';

const read = (dir: string, name: string): unknown => JSON.parse(readFileSync(join(dir, name), 'utf8'));

test('the vendored vector copies equal the shared vectors', (t) => {
  if (!existsSync(SHARED_DIR)) return t.skip('shared vectors folder not present in this checkout');
  // compared as data: the copies are formatted by the repo's prettier
  for (const name of ['iavl.json', 'lthash.json', 'commit-info.json']) {
    assert.deepEqual(read(COPY_DIR, name), read(SHARED_DIR, name), name);
  }
});
