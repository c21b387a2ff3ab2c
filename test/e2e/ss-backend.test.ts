/**
 * The State Store backend of a home with history, through the spawned CLI:
 *
 *   1. `start` with another `ss-backend` than the one that holds the history is refused in one line
 *      naming `ss-backend` and the remedies, and creates no directory for the rejected backend (it
 *      used to start on an empty store and answer every historical read with zeros);
 *   2. `rollback` takes the same configuration flags and environment as `start`, so a rocksdb node can
 *      be rolled back; without them it is refused before anything changes;
 *   3. a rollback the State Store cannot follow (its history is pruned below the target) is refused
 *      before State Commit moves;
 *   4. turning `evm-ss-split` on for a home with history is refused (the split's first startup check)
 *      with remedies this node can carry out: no state sync, which it cannot do yet.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { ChaindProcess, runChaind, tempHome } from '../helpers/chaind.ts';

const FAST = ['--log_format', 'json', '--consensus.timeout-commit', '20ms'];
const ROCKS = ['--state-store.ss-backend', 'rocksdb'];

const records = (lines: string[]) => lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));

/** Runs `chaind dev` on `home` until block `height` is committed; returns height → app hash. */
async function history(home: string, height: number, extra: string[] = []): Promise<Map<number, string>> {
  const node = new ChaindProcess(['dev', '--home', home, ...FAST, ...extra]);
  try {
    await node.waitForLine((l) => l.includes('"committed block"') && JSON.parse(l).height >= height, 60_000);
  } finally {
    assert.equal((await node.stop('SIGTERM')).code, 0, node.stderr);
  }
  return new Map(
    records(node.lines)
      .filter((r) => r.msg === 'committed block')
      .map((r) => [r.height as number, r.app_hash as string]),
  );
}

/**
 * Starts `chaind start` expecting a refusal: resolves with its one stderr line. A node that starts
 * instead fails the test (and is killed) rather than hanging it.
 */
async function refusedStart(args: string[], env: Record<string, string> = {}): Promise<string> {
  const node = new ChaindProcess(['start', ...args, '--log_format', 'json'], env);
  const exited = node.exited.then(() => true);
  for (const deadline = Date.now() + 60_000; !(await Promise.race([exited, delay(50, false)]));) {
    if (node.lines.some((l) => l.includes('"node started"')) || Date.now() > deadline) {
      await node.stop('SIGKILL');
      assert.fail(`the node did not refuse to start; log:\n${node.lines.join('\n')}`);
    }
  }
  const { code } = await node.exited;
  assert.equal(code, 1, node.stderr);
  const lines = node.stderr.trim().split('\n');
  assert.equal(lines.length, 1, `expected one line, got: ${node.stderr}`);
  return lines[0];
}

/** The error line a failed one-shot command (rollback) ends with; its logs go to stderr before it. */
function errorLine(stderr: string): string {
  const lines = stderr.trim().split('\n');
  return lines[lines.length - 1];
}

/** `chaind start` until the chain is open: the height and app hash it opened at, and whether it replayed. */
async function openedAt(home: string, extra: string[] = []) {
  const node = new ChaindProcess(['start', '--home', home, ...FAST, ...extra]);
  try {
    const opened = JSON.parse(await node.waitForLine((l) => l.includes('"chain opened"'), 60_000));
    return {
      height: opened.height as number,
      appHash: opened.app_hash as string,
      replayed: records(node.lines).filter((r) => r.msg === 'replayed block').length,
    };
  } finally {
    assert.equal((await node.stop('SIGTERM')).code, 0, node.stderr);
  }
}

test('a home with history started on another ss-backend is refused, names ss-backend and the remedy, creates nothing', async (t) => {
  const home = tempHome(t);
  const hashes = await history(home, 5);
  const latest = Math.max(...hashes.keys());

  const viaFlag = await refusedStart(['--home', home, ...ROCKS]);
  assert.match(viaFlag, /^error: refusing to start with ss-backend = "rocksdb": /);
  assert.match(
    viaFlag,
    /State Commit holds version \d+ but the rocksdb state store .*data\/rocksdb is missing or empty/,
  );
  assert.match(
    viaFlag,
    /Set ss-backend back to "pebbledb" \(the data is in .*data\/pebbledb\), state sync this node into the rocksdb backend \(docs\/operators\/evm-ss-split-migration\.md\), or start from an empty data directory\.$/,
  );
  assert.equal(existsSync(join(home, 'data', 'rocksdb')), false, 'no directory for the rejected backend');

  const viaEnv = await refusedStart(['--home', home], { CHAIND_STATE_STORE_SS_BACKEND: 'rocksdb' });
  assert.equal(viaEnv, viaFlag);
  assert.equal(existsSync(join(home, 'data', 'rocksdb')), false);

  // the history is intact where it was
  const back = await openedAt(home);
  assert.deepEqual(back, { height: latest, appHash: hashes.get(latest), replayed: 0 });
});

test('rollback takes start`s config flags and environment: a rocksdb node rolls back; without them nothing changes', async (t) => {
  const home = tempHome(t);
  const hashes = await history(home, 8, ROCKS);
  const latest = Math.max(...hashes.keys());
  assert.equal(existsSync(join(home, 'data', 'pebbledb')), false);

  // app.toml still says pebbledb: refused before State Commit moves, and no data/pebbledb appears
  const wrong = runChaind(['rollback', '--home', home]);
  assert.equal(wrong.code, 1, wrong.stdout);
  assert.match(
    errorLine(wrong.stderr),
    /^error: refusing to start with ss-backend = "pebbledb": .*Set ss-backend back to "rocksdb" \(the data is in .*data\/rocksdb\)/,
  );
  assert.equal(
    existsSync(join(home, 'data', 'pebbledb')),
    false,
    'the failed rollback created data/pebbledb',
  );

  const one = runChaind(['rollback', '--home', home, ...ROCKS, '--log_format', 'json']);
  assert.equal(one.code, 0, one.stderr);
  assert.deepEqual(JSON.parse(one.stdout), { height: latest - 1, app_hash: hashes.get(latest - 1) });
  assert.equal(
    records(one.stderr.split('\n')).filter((r) => r.msg === 'replayed block').length,
    0,
    'the refused rollback had not rolled State Commit back',
  );

  const two = runChaind(['rollback', '--home', home, '-n', '2'], {
    CHAIND_STATE_STORE_SS_BACKEND: 'rocksdb',
  });
  assert.equal(two.code, 0, two.stderr);
  assert.deepEqual(JSON.parse(two.stdout), { height: latest - 3, app_hash: hashes.get(latest - 3) });
  assert.equal(existsSync(join(home, 'data', 'pebbledb')), false);

  assert.deepEqual(await openedAt(home, ROCKS), {
    height: latest - 3,
    appHash: hashes.get(latest - 3),
    replayed: 0,
  });
});

test('a rollback below the pruned State Store history is refused before State Commit moves', async (t) => {
  const home = tempHome(t);
  const prune = ['--state-store.ss-keep-recent', '2', '--state-store.ss-prune-interval', '1'];
  const node = new ChaindProcess(['dev', '--home', home, ...FAST, '--log_level', 'debug', ...prune]);
  t.after(() => node.stop('SIGKILL'));
  const pruned = JSON.parse(
    await node.waitForLine((l) => l.includes('"state store pruned"') && JSON.parse(l).height >= 8, 60_000),
  );
  assert.equal((await node.stop('SIGTERM')).code, 0, node.stderr);
  const committed = records(node.lines).filter((r) => r.msg === 'committed block');
  const latest = committed[committed.length - 1].height as number;
  // SS version v is the state after height v - 1: the pruned store keeps heights from pruned.height - 1
  const n = latest - (pruned.height - 1) + 2;

  const refused = runChaind(['rollback', '--home', home, '-n', String(n)]);
  assert.equal(refused.code, 1, refused.stdout);
  assert.match(
    errorLine(refused.stderr),
    new RegExp(
      `^error: cannot roll back to height ${latest - n}: the state store keeps heights from \\d+ \\(ss-keep-recent\\); nothing was changed$`,
    ),
  );
  const after = await openedAt(home, prune);
  assert.equal(after.height, latest);
  assert.equal(after.replayed, 0, 'State Commit was rolled back by the refused rollback');
});

test('evm-ss-split turned on for a home with history is refused with the remedies: state sync, or the split off', async (t) => {
  const home = tempHome(t);
  await history(home, 3);
  const line = await refusedStart(['--home', home, '--state-store.evm-ss-split', 'true']);
  const evmDir = join(home, 'data', 'evm_ss');
  assert.match(
    line,
    new RegExp(
      `^error: refusing to start with evm-ss-split = true: the Cosmos state store in .*data/pebbledb has ` +
        `committed history \\(latest version \\d+\\) but the EVM state store directory ${evmDir} is missing ` +
        'or empty\\. Complete a state sync into the split layout \\(wipe the data directory keeping ' +
        'priv_validator_state\\.json and start with \\[statesync\\] enable = true: ' +
        'docs/operators/evm-ss-split-migration\\.md\\), or set evm-ss-split = false in app\\.toml ' +
        '\\[state-store\\] and restart\\.$',
    ),
  );
  assert.equal(existsSync(evmDir), false, 'the refused start created no EVM state store directory');
});
