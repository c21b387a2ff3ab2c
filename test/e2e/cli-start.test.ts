import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ChaindProcess, runChaind, tempHome } from '../helpers/chaind.ts';

function initHome(t: Parameters<typeof tempHome>[0]): string {
  const home = tempHome(t);
  const r = runChaind(['init', 'n', '--chain-id', 'n-1', '--home', home, '--engine', 'embedded']);
  assert.equal(r.code, 0, r.stderr);
  return home;
}

function edit(home: string, file: string, fn: (text: string) => string): void {
  const path = join(home, 'config', file);
  writeFileSync(path, fn(readFileSync(path, 'utf8')));
}

/** Starts a node expected to fail at startup; returns its stderr lines. */
function failedStart(home: string, extra: string[] = [], env: Record<string, string> = {}) {
  const r = runChaind(['start', '--home', home, ...extra], env);
  assert.equal(r.code, 1, `expected exit 1, got ${r.code}; stdout: ${r.stdout}`);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, `expected one line, got: ${r.stderr}`);
  return lines[0];
}

test('start accepts the genesis init wrote, logs JSON at the chosen level, and exits 0 on SIGTERM', async (t) => {
  const home = initHome(t);
  const node = new ChaindProcess(['start', '--home', home, '--log_format', 'json', '--log_level', 'debug']);
  t.after(() => node.stop('SIGKILL'));
  await node.waitForLine((l) => l.includes('node started'));
  const { code, signal } = await node.stop('SIGTERM');
  assert.equal(signal, null);
  assert.equal(code, 0);
  const records = node.lines.map((l) => JSON.parse(l));
  for (const r of records) {
    assert.equal(typeof r.time, 'string');
    assert.ok(['trace', 'debug', 'info', 'warn', 'error'].includes(r.level));
    assert.equal(typeof r.msg, 'string');
    assert.equal(typeof r.module, 'string');
  }
  assert.ok(
    records.some((r) => r.level === 'debug'),
    'debug lines are shown at level debug',
  );
  assert.ok(records.some((r) => r.msg === 'node stopped' && r.clean === true));
});

test('log_level from config.toml filters lower levels; the environment overrides the file', async (t) => {
  const home = initHome(t);
  edit(home, 'config.toml', (s) =>
    s
      .replace('log_level = "info"', 'log_level = "warn"')
      .replace('log_format = "plain"', 'log_format = "json"'),
  );
  const quiet = new ChaindProcess(['start', '--home', home]);
  t.after(() => quiet.stop('SIGKILL'));
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal((await quiet.stop()).code, 0);
  assert.deepEqual(quiet.lines, [], 'no info lines at level warn');

  const loud = new ChaindProcess(['start', '--home', home], { CHAIND_LOG_LEVEL: 'info' });
  t.after(() => loud.stop('SIGKILL'));
  const line = await loud.waitForLine((l) => l.includes('node started'));
  assert.equal(JSON.parse(line).level, 'info');
  assert.equal((await loud.stop('SIGINT')).code, 0);
});

test('plain log format prints one readable line per event', async (t) => {
  const home = initHome(t);
  const node = new ChaindProcess(['start', '--home', home]);
  t.after(() => node.stop('SIGKILL'));
  const line = await node.waitForLine((l) => l.includes('node started'));
  assert.match(line, /^\d{4}-\d\d-\d\dT[\d:.]+Z INF \[node\] node started data_dir=/);
  await node.stop();
});

test('an invalid value stops startup naming file, key and expected form', (t) => {
  const home = initHome(t);
  edit(home, 'app.toml', (s) => s.replace('ss-backend = "pebbledb"', 'ss-backend = "leveldb"'));
  assert.equal(
    failedStart(home),
    'error: app.toml: state-store.ss-backend: "leveldb" is not allowed, expected one of "pebbledb", "rocksdb", "lmdb"',
  );
  edit(home, 'app.toml', (s) =>
    s
      .replace('ss-backend = "leveldb"', 'ss-backend = "rocksdb"')
      .replace('http_port = 8545', 'http_port = 70000'),
  );
  assert.equal(
    failedStart(home),
    'error: app.toml: evm.http_port: 70000 is out of range, expected an integer from 0 to 65535',
  );
  edit(home, 'app.toml', (s) => s.replace('http_port = 70000', 'http_port = 8545'));
  edit(home, 'config.toml', (s) => s.replace('ttl-duration = "5s"', 'ttl-duration = "soon"'));
  assert.equal(
    failedStart(home),
    'error: config.toml: mempool.ttl-duration: "soon" is not a duration, expected a duration such as "400ms", "5s", "168h"',
  );
});

test('invalid values from the environment and flags name their source', (t) => {
  const home = initHome(t);
  assert.equal(
    failedStart(home, [], { CHAIND_EVM_HTTP_PORT: 'eighty' }),
    'error: environment CHAIND_EVM_HTTP_PORT (app.toml): evm.http_port: "eighty" is not an integer, expected an integer from 0 to 65535',
  );
  assert.equal(
    failedStart(home, ['--log_level', 'loud']),
    'error: flag --log_level (config.toml): log_level: "loud" is not allowed, expected one of "trace", "debug", "info", "warn", "error"',
  );
});

test('an unknown key is reported as a warning naming file and key, and startup continues', async (t) => {
  const home = initHome(t);
  edit(home, 'app.toml', (s) => s.replace('[state-store]', '[state-store]\nss-turbo = true'));
  const node = new ChaindProcess(['start', '--home', home, '--log_format', 'json']);
  t.after(() => node.stop('SIGKILL'));
  const warning = JSON.parse(await node.waitForLine((l) => l.includes('ss-turbo')));
  assert.equal(warning.level, 'warn');
  assert.equal(warning.module, 'config');
  assert.equal(warning.msg, 'app.toml: unknown key state-store.ss-turbo is ignored');
  await node.waitForLine((l) => l.includes('node started'));
  assert.equal((await node.stop()).code, 0);
});

test('a legacy evm-ss-*-mode key stops startup with the upgrade message', (t) => {
  const home = initHome(t);
  edit(home, 'app.toml', (s) => s.replace('[state-store]', '[state-store]\nevm-ss-write-mode = "dual"'));
  assert.equal(
    failedStart(home),
    'error: app.toml: state-store.evm-ss-write-mode: this key belongs to older node builds and was replaced by evm-ss-split; update the config (remove evm-ss-write-mode, set evm-ss-split) before starting',
  );
  edit(home, 'app.toml', (s) => s.replace('evm-ss-write-mode = "dual"', 'evm_ss_read_mode = "split"'));
  assert.match(
    failedStart(home),
    /^error: app\.toml: state-store\.evm_ss_read_mode: this key belongs to older node builds/,
  );
});

test('a missing or broken genesis stops startup with one line', (t) => {
  const home = initHome(t);
  const genesis = join(home, 'config', 'genesis.json');
  const text = readFileSync(genesis, 'utf8');
  rmSync(genesis);
  assert.equal(
    failedStart(home),
    `error: genesis.json: not found at ${genesis}; run \`chaind init\` or restore it`,
  );
  writeFileSync(genesis, text.replace('"state_commitment": "flatkv"', '"state_commitment": "mpt"'));
  assert.equal(
    failedStart(home),
    `error: ${genesis}: app_state.evm.params.state_commitment: must be "flatkv" or "iavl"`,
  );
});

test('a missing config file stops startup and says to run init', (t) => {
  const home = tempHome(t);
  assert.match(
    failedStart(home),
    /^error: config\.toml: not found at .*config\/config\.toml; run `chaind init` first$/,
  );
});

test('a second process on the same home fails with the lock error; a stale lock is taken over', async (t) => {
  const home = initHome(t);
  const first = new ChaindProcess(['start', '--home', home]);
  t.after(() => first.stop('SIGKILL'));
  await first.waitForLine((l) => l.includes('node started'));
  const line = failedStart(home);
  assert.equal(
    line,
    `error: failed to initialize database: resource temporarily unavailable (lock ${join(home, 'data', 'LOCK')} is held by process ${first.child.pid})`,
  );
  // A SIGKILLed node leaves its LOCK file behind; the next start must not be blocked by it.
  await first.stop('SIGKILL');
  const second = new ChaindProcess(['start', '--home', home]);
  t.after(() => second.stop('SIGKILL'));
  await second.waitForLine((l) => l.includes('node started'));
  assert.equal((await second.stop()).code, 0);
});

test('a SIGTERM that arrives while the node is still starting leads to a clean stop, exit 0', async (t) => {
  const home = initHome(t);
  const node = new ChaindProcess(['start', '--home', home, '--log_format', 'json']);
  t.after(() => node.stop('SIGKILL'));
  await node.waitForLine((l) => l.includes('starting node'));
  node.child.kill('SIGTERM');
  const { code, signal } = await node.exited;
  assert.equal(signal, null);
  assert.equal(code, 0);
  assert.ok(node.lines.some((l) => JSON.parse(l).msg === 'node stopped'));
});

test('a db_dir changed after init works on a fresh chain (the validator state file is created there)', async (t) => {
  const home = initHome(t);
  edit(home, 'config.toml', (s) => s.replace('db_dir = "data"', 'db_dir = "db"'));
  const node = new ChaindProcess(['start', '--home', home, '--log_format', 'json']);
  t.after(() => node.stop('SIGKILL'));
  await node.waitForLine((l) => l.includes('"committed block"'));
  assert.equal((await node.stop()).code, 0);
  assert.equal(JSON.parse(readFileSync(join(home, 'db', 'priv_validator_state.json'), 'utf8')).step, 3);
});
