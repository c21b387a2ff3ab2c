/**
 * The State Store's write-ahead logs cover the last `ss-keep-recent` blocks, as an operator sizing a
 * node's disk reads the setting: a node that ran many more blocks than that keeps about that many.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { Changelog } from '../../src/storage/ss/changelog.ts';
import { ChaindProcess, runChaind, tempHome } from '../helpers/chaind.ts';

const KEEP_RECENT = 20;

function versionsIn(dir: string): number[] {
  const log = Changelog.open(dir, { keep: 0 });
  try {
    return [...log.recordsAfter(0)].map((r) => r.version);
  } finally {
    log.close();
  }
}

test('with ss-keep-recent = 20, the Cosmos and EVM changelogs hold about the last 20 blocks after 80', async (t) => {
  const home = tempHome(t);
  assert.equal(runChaind(['init', 'n', '--chain-id', 'n-1', '--home', home, '--engine', 'embedded']).code, 0);
  const node = new ChaindProcess([
    'start',
    '--home',
    home,
    '--log_format',
    'json',
    '--consensus.timeout-commit',
    '20ms',
    '--state-store.ss-keep-recent',
    String(KEEP_RECENT),
    '--state-store.evm-ss-split',
    'true',
  ]);
  t.after(() => node.stop('SIGKILL'));
  await node.waitForLine(
    (l) => l.includes('"committed block"') && JSON.parse(l).height >= 4 * KEEP_RECENT,
    60_000,
  );
  assert.equal((await node.stop('SIGTERM')).code, 0);
  const stopped = JSON.parse(node.lines.filter((l) => l.includes('"committed block"')).at(-1)!).height;
  const latestVersion = stopped + 1; // the state after block h is version h + 1

  for (const dir of [
    join(home, 'data', 'pebbledb', 'changelog'),
    join(home, 'data', 'evm_ss', 'changelog'),
  ]) {
    const versions = versionsIn(dir);
    assert.equal(versions.at(-1), latestVersion, `${dir} ends at the latest block`);
    assert.deepEqual(
      versions,
      Array.from({ length: versions.length }, (_, i) => versions[0] + i),
      `${dir} holds consecutive blocks`,
    );
    assert.ok(
      versions.length >= KEEP_RECENT && versions.length <= KEEP_RECENT * 1.25,
      `${dir} covers about the last ${KEEP_RECENT} blocks; it holds ${versions.length} (${versions[0]}..${versions.at(-1)})`,
    );
  }
});
