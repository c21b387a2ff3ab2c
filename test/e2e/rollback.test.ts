import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ChaindProcess, runChaind, tempHome } from '../helpers/chaind.ts';

const committed = (lines: string[]) =>
  new Map(
    lines
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l))
      .filter((r) => r.msg === 'committed block')
      .map((r) => [r.height as number, r.app_hash as string]),
  );

test('rollback by 1 and by 5 blocks through the CLI; refused while the node runs; the node restarts from there', async (t) => {
  const home = tempHome(t);
  const flags = ['--log_format', 'json', '--consensus.timeout-commit', '20ms'];
  const node = new ChaindProcess(['dev', '--home', home, '--state-commitment', 'iavl', ...flags]);
  t.after(() => node.stop('SIGKILL'));
  await node.waitForLine((l) => l.includes('"committed block"') && JSON.parse(l).height >= 12, 60_000);

  const whileRunning = runChaind(['rollback', '--home', home]);
  assert.equal(whileRunning.code, 1);
  assert.match(
    whileRunning.stderr,
    /^error: failed to initialize database: resource temporarily unavailable \(lock .*data\/LOCK is held by process \d+\)\n$/,
  );

  assert.equal((await node.stop('SIGTERM')).code, 0);
  const appHashAfter = committed(node.lines);
  const latest = Math.max(...appHashAfter.keys());

  const one = runChaind(['rollback', '--home', home]);
  assert.equal(one.code, 0, one.stderr);
  assert.deepEqual(JSON.parse(one.stdout), { height: latest - 1, app_hash: appHashAfter.get(latest - 1) });

  const five = runChaind(['rollback', '--home', home, '-n', '5']);
  assert.equal(five.code, 0, five.stderr);
  const target = latest - 6;
  assert.deepEqual(JSON.parse(five.stdout), { height: target, app_hash: appHashAfter.get(target) });
  const state = JSON.parse(readFileSync(join(home, 'data', 'priv_validator_state.json'), 'utf8'));
  assert.equal(state.height, String(target));

  const tooFar = runChaind(['rollback', '--home', home, '-n', String(target + 1)]);
  assert.equal(tooFar.code, 1);
  assert.match(
    tooFar.stderr,
    new RegExp(`cannot roll back ${target + 1} blocks: the latest height is ${target}`),
  );

  const again = new ChaindProcess(['start', '--home', home, ...flags]);
  t.after(() => again.stop('SIGKILL'));
  const opened = JSON.parse(await again.waitForLine((l) => l.includes('"chain opened"')));
  assert.equal(opened.height, target);
  assert.equal(opened.app_hash, appHashAfter.get(target));
  await again.waitForLine((l) => l.includes('"committed block"') && JSON.parse(l).height >= target + 2);
  assert.equal((await again.stop('SIGTERM')).code, 0);
});
