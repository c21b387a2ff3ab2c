import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COPY_DIR, SHARED_DIR } from './vectors.ts';

test('the vendored vector copies equal the shared vectors', (t) => {
  if (!existsSync(SHARED_DIR)) return t.skip('shared vectors folder not present in this checkout');
  for (const name of ['iavl.json', 'lthash.json', 'commit-info.json']) {
    assert.equal(
      readFileSync(join(COPY_DIR, name), 'utf8'),
      readFileSync(join(SHARED_DIR, name), 'utf8'),
      name,
    );
  }
});
