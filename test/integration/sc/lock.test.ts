/** A second process opening the same SC directory gets the spec's lock error naming the path. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { CommitStore } from '../../../src/storage/sc/commit-store.ts';
import { tempDir } from '../../unit/storage/sc/helpers.ts';

test('a second process cannot open a state commit directory that is in use', async () => {
  const { dir, cleanup } = tempDir('sc-lock-');
  try {
    const sc = await CommitStore.open({ dir, stores: ['bank', 'evm'] });
    const store = join(import.meta.dirname, '../../../src/storage/sc/commit-store.ts');
    const script = `
      const { CommitStore } = await import(${JSON.stringify(store)});
      try { await CommitStore.open({ dir: ${JSON.stringify(dir)}, stores: ['bank', 'evm'] }); console.log('opened'); }
      catch (e) { console.log(e.code + ' ' + e.message); }`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.equal(child.status, 0, child.stderr);
    assert.match(child.stdout, /^LOCK_HELD failed to initialize database: resource temporarily unavailable/);
    assert.ok(child.stdout.includes(join(dir, 'LOCK')), child.stdout);
    await sc.close();
    // released on close: another process can open it now
    const again = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.equal(again.stdout.trim(), 'opened');
  } finally {
    cleanup();
  }
});
