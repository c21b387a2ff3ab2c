/**
 * SIGKILL while a commit store rolls recent versions back in memory and commits others in their place
 * (a dev chain's evm_revert), on the real lmdb engine: whatever moment the kill lands on, the reopened
 * store is at a (version, app hash) the child reported, and it takes the next block.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { CommitStore } from '../../../src/storage/sc/commit-store.ts';
import { toHex } from '../../../src/primitives/bytes.ts';
import { tempDir } from '../../unit/storage/sc/helpers.ts';
import { blocks, STORES } from './blocks.ts';

const CHILD = join(import.meta.dirname, 'rewind-crash-child.ts');

async function runAndKill(dir: string, seed: number, killAfter: number) {
  const child = spawn(process.execPath, [CHILD, dir, String(seed)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const reported = new Set<string>();
  let inMemory = 0;
  let lines = 0;
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  let buf = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      buf += d;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const r = JSON.parse(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        reported.add(`${r.version}:${r.appHash}`);
        inMemory = r.inMemory;
        if (++lines >= killAfter && child.exitCode === null) child.kill('SIGKILL');
      }
    });
    child.on('exit', (code, signal) =>
      signal === 'SIGKILL' ? resolve() : reject(new Error(`child exited ${code}: ${stderr}`)),
    );
  });
  return { reported, inMemory };
}

test('SIGKILL during in-memory rollbacks and the commits after them: reopen gives a reported version and app hash', async () => {
  for (const seed of [21, 22, 23]) {
    const { dir, cleanup } = tempDir('sc-rewind-crash-');
    try {
      const { reported, inMemory } = await runAndKill(dir, seed, 20 + Math.floor(Math.random() * 40));
      assert.ok(inMemory > 0, 'the rollbacks were done in memory');
      const sc = await CommitStore.open({ dir, stores: STORES, snapshotInterval: 0 });
      try {
        assert.ok(
          reported.has(`${sc.version}:${toHex(sc.appHash())}`),
          `reopened at ${sc.version} with an app hash the child never reported`,
        );
        sc.applyChangeSets(sc.version + 1, blocks(seed + 2, 10).next().value!);
        await sc.commit();
      } finally {
        await sc.close();
      }
    } finally {
      cleanup();
    }
  }
});
