import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { openBlockStore } from '../../src/storage/blocks/store.ts';
import { ChaindProcess, tempHome } from '../helpers/chaind.ts';

interface Committed {
  height: number;
  hash: string;
  appHash: string;
}

const committedLines = (lines: string[]): Committed[] =>
  lines
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l))
    .filter((r) => r.msg === 'committed block')
    .map((r) => ({ height: r.height, hash: r.hash, appHash: r.app_hash }));

test('SIGKILL during block production loses no committed block and changes no app hash', async (t) => {
  const home = tempHome(t);
  const flags = ['--log_format', 'json', '--consensus.timeout-commit', '20ms'];
  const seen: Committed[] = [];
  // iavl commitment. These blocks are empty: a block that changes no state keeps its parent's app
  // hash (a block's changes are the keys it changed), so each height is checked against the hash the
  // next header carries, not against the other heights'.
  let node = new ChaindProcess(['dev', '--home', home, '--state-commitment', 'iavl', ...flags]);
  for (let round = 0; round < 3; round++) {
    if (round > 0) node = new ChaindProcess(['start', '--home', home, ...flags]);
    t.after(() => node.stop('SIGKILL'));
    const target = 5 + round * 7 + Math.floor(Math.random() * 5);
    await node.waitForLine((l) => l.includes('"committed block"') && JSON.parse(l).height >= target, 60_000);
    await new Promise((r) => setTimeout(r, Math.random() * 30)); // land anywhere inside the next block
    const { signal } = await node.stop('SIGKILL');
    assert.equal(signal, 'SIGKILL');
    seen.push(...committedLines(node.lines));
  }
  // A last clean run: recovery must come up at or past every height reported before the kills.
  node = new ChaindProcess(['start', '--home', home, ...flags]);
  t.after(() => node.stop('SIGKILL'));
  const opened = JSON.parse(await node.waitForLine((l) => l.includes('"chain opened"')));
  const lastReported = Math.max(...seen.map((c) => c.height));
  assert.ok(
    opened.height >= lastReported,
    `reopened at ${opened.height}, but ${lastReported} was reported committed`,
  );
  await node.waitForLine((l) => l.includes('"committed block"'));
  assert.equal((await node.stop('SIGTERM')).code, 0);
  seen.push(...committedLines(node.lines));

  const blocks = await openBlockStore({ dataDir: join(home, 'data') });
  try {
    for (const c of seen) {
      const block = blocks.blockByHeight(c.height);
      assert.ok(block, `block ${c.height} was reported committed but is gone`);
      assert.equal(
        Buffer.from(block.hash).toString('hex').toUpperCase(),
        c.hash,
        `block ${c.height} changed`,
      );
      const next = blocks.blockByHeight(c.height + 1);
      if (next)
        assert.equal(
          Buffer.from(next.header.appHash).toString('hex').toUpperCase(),
          c.appHash,
          `app hash after ${c.height} changed`,
        );
    }
    // the checks above ran on real hashes, over every round's heights
    assert.ok(seen.length >= 15, `${seen.length} committed heights seen`);
    for (const c of seen) assert.match(c.appHash, /^[0-9A-F]{64}$/, `app hash at ${c.height}`);
    assert.ok(
      seen.some((c) => blocks.blockByHeight(c.height + 1) !== undefined),
      'no height had a next header to compare its app hash with',
    );
  } finally {
    await blocks.close();
  }
});
