import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { toHex } from '../../../../src/primitives/bytes.ts';
import { openLmdbStore } from '../../../../src/storage/kv/lmdb.ts';
import { openBlockStore } from '../../../../src/storage/blocks/index.ts';
import { crashShape, makeChain, prng, tempDir } from './fixtures.ts';

async function dump(dir: string): Promise<Map<string, string>> {
  const kv = await openLmdbStore(join(dir, 'blockstore'));
  const out = new Map<string, string>();
  for (const [k, v] of kv.iterateSync!()) out.set(toHex(k), toHex(v));
  await kv.close();
  return out;
}

test('SIGKILL during putBlock loses no committed height and leaves no partial one', async () => {
  const dir = tempDir('blocks-crash-');
  const ref = tempDir('blocks-crash-ref-');
  try {
    const fixtures = join(import.meta.dirname, 'fixtures.ts');
    const store = join(import.meta.dirname, '../../../../src/storage/blocks/index.ts');
    // The child writes durable blocks as fast as it can and reports each committed height.
    const script = `
      import { openBlockStore } from ${JSON.stringify(store)};
      import { crashShape, makeChain, prng } from ${JSON.stringify(fixtures)};
      const s = await openBlockStore({ dataDir: ${JSON.stringify(dir.path)} });
      for (const c of makeChain(1, 100000, crashShape(), prng(77))) {
        await s.putBlock(c.block, c.receipts, c.results);
        process.stdout.write(c.block.header.height + '\\n');
      }`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let committed = 0;
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (d: Buffer) => {
        committed = Math.max(committed, ...d.toString().trim().split('\n').map(Number));
        // kill at a time unrelated to block boundaries: mid-way through a later write
        if (committed >= 8) setTimeout(() => child.kill('SIGKILL'), 7);
      });
      child.on('exit', () => resolve());
    });

    const reopened = await openBlockStore({ dataDir: dir.path, sync: false });
    const latest = reopened.latestHeight()!;
    assert.ok(latest >= committed, `latest ${latest} is below the reported committed height ${committed}`);
    assert.equal(reopened.earliestHeight(), 1);
    await reopened.close();

    // Exactly the first `latest` blocks, byte for byte: nothing partial of height latest + 1.
    const r = await openBlockStore({ dataDir: ref.path, sync: false });
    for (const c of makeChain(1, latest, crashShape(), prng(77)))
      await r.putBlock(c.block, c.receipts, c.results);
    await r.close();
    assert.deepEqual(await dump(dir.path), await dump(ref.path));
  } finally {
    dir.remove();
    ref.remove();
  }
});
