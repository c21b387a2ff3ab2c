import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { formatDuration, parseDuration, parseListenAddress } from '../../../src/config/fields.ts';
import { SCHEMA_KEYS } from '../../../src/config/keys.ts';
import { defaultConfig, loadConfig } from '../../../src/config/load.ts';
import { renderConfigFile } from '../../../src/config/render.ts';
import { ConfigError } from '../../../src/util/errors.ts';

function home(t: { after(fn: () => void): void }, files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'chaind-cfg-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'config'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, 'config', name), text);
  return dir;
}

const rendered = () => ({
  'config.toml': renderConfigFile('config.toml', defaultConfig()),
  'app.toml': renderConfigFile('app.toml', defaultConfig()),
});

test('rendered files load back to exactly the defaults, with no warnings', (t) => {
  const loaded = loadConfig({ home: home(t, rendered()), env: {} });
  assert.deepEqual(loaded.config, defaultConfig());
  assert.deepEqual(loaded.warnings, []);
});

test('the schema covers every key the spec and the foundation issue name', () => {
  const flags = new Set(SCHEMA_KEYS.map((k) => k.flag));
  for (const f of [
    'log_level',
    'log_format',
    'moniker',
    'db_dir',
    'rpc.laddr',
    'rpc.lag-threshold',
    'p2p.max-packet-msg-payload-size',
    'mempool.keep-invalid-txs-in-cache',
    'mempool.ttl-duration',
    'mempool.ttl-num-blocks',
    'consensus.timeout-commit',
    'statesync.trust-hash',
    'instrumentation.prometheus-listen-addr',
    'state-commit.sc-enable',
    'state-store.ss-enable',
    'state-store.ss-backend',
    'state-store.evm-ss-split',
    'state-store.ss-keep-recent',
    'state-store.evm-ss-separate-dbs',
    'evm.enabled_legacy_chain_apis',
    'evm.max_log_no_block',
    'evm.max_blocks_for_log',
    'evm.deny_list',
    'api.address',
    'grpc.address',
  ]) {
    assert.ok(flags.has(f), `missing ${f}`);
  }
});

test('defaults match the documented values', () => {
  const c = defaultConfig();
  assert.equal(c.config.logLevel, 'info');
  assert.equal(c.config.logFormat, 'plain');
  assert.equal(c.config.p2p.maxPacketMsgPayloadSize, 102400);
  assert.equal(c.config.consensus.timeoutCommit, 400);
  assert.equal(c.config.statesync.trustPeriod, 168 * 3600 * 1000);
  assert.equal(c.app.stateStore.ssBackend, 'pebbledb');
  assert.equal(c.app.stateStore.ssKeepRecent, 100000);
  assert.equal(c.app.evm.maxRequestBodyBytes, 5242880);
  assert.equal(c.app.evm.filterTimeout, 120_000);
});

test('both spellings of a key are accepted, in sections and at the top level', (t) => {
  const dir = home(t, {
    'config.toml': 'log-level = "debug"\n[mempool]\nttl_duration = "10s"\nkeep_invalid_txs_in_cache = true\n',
    'app.toml': '[state_store]\nss_backend = "rocksdb"\n[evm]\nhttp-port = 9545\n',
  });
  const { config, warnings } = loadConfig({ home: dir, env: {} });
  assert.deepEqual(warnings, []);
  assert.equal(config.config.logLevel, 'debug');
  assert.equal(config.config.mempool.ttlDuration, 10_000);
  assert.equal(config.config.mempool.keepInvalidTxsInCache, true);
  assert.equal(config.app.stateStore.ssBackend, 'rocksdb');
  assert.equal(config.app.evm.httpPort, 9545);
});

test('precedence: defaults < files < environment < flags', (t) => {
  const dir = home(t, {
    'config.toml': 'log_level = "warn"\nmoniker = "file"\n',
    'app.toml': '[evm]\nhttp_port = 1000\nws_port = 1001\n',
  });
  const { config } = loadConfig({
    home: dir,
    env: { CHAIND_LOG_LEVEL: 'error', CHAIND_EVM_HTTP_PORT: '2000', CHAIND_STATE_STORE_EVM_SS_SPLIT: 'true' },
    flags: { 'evm.http_port': '3000', log_level: 'trace' },
  });
  assert.equal(config.config.moniker, 'file');
  assert.equal(config.config.logLevel, 'trace');
  assert.equal(config.app.evm.httpPort, 3000);
  assert.equal(config.app.evm.wsPort, 1001);
  assert.equal(config.app.stateStore.evmSsSplit, true);
  assert.equal(config.config.rpc.lagThreshold, 300);
});

test('lists accept TOML arrays, and env values as JSON arrays or comma lists', (t) => {
  const dir = home(t, { 'config.toml': '', 'app.toml': '[evm]\ndeny_list = ["eth_sendRawTransaction"]\n' });
  assert.deepEqual(loadConfig({ home: dir, env: {} }).config.app.evm.denyList, ['eth_sendRawTransaction']);
  const env = { CHAIND_EVM_ENABLED_LEGACY_CHAIN_APIS: 'chain_getEVMAddress, chain_associate' };
  assert.deepEqual(loadConfig({ home: dir, env }).config.app.evm.enabledLegacyChainApis, [
    'chain_getEVMAddress',
    'chain_associate',
  ]);
  const json = { CHAIND_EVM_DENY_LIST: '["a","b"]' };
  assert.deepEqual(loadConfig({ home: dir, env: json }).config.app.evm.denyList, ['a', 'b']);
});

test('unknown keys and sections become warnings naming file and key', (t) => {
  const dir = home(t, {
    'config.toml': 'colour = "blue"\n[p2p]\nturbo = 1\n',
    'app.toml': '[telemetry]\nenabled = true\n',
  });
  assert.deepEqual(loadConfig({ home: dir, env: {} }).warnings, [
    'config.toml: unknown key colour is ignored',
    'config.toml: unknown key p2p.turbo is ignored',
    'app.toml: unknown section [telemetry] is ignored',
  ]);
});

test('invalid values throw ConfigError with file, key, problem and expected form', (t) => {
  const cases: [string, string, RegExp][] = [
    [
      'config.toml',
      'log_format = "xml"',
      /^config\.toml: log_format: "xml" is not allowed, expected one of "plain", "json"$/,
    ],
    [
      'config.toml',
      '[p2p]\npex = "yes"',
      /^config\.toml: p2p\.pex: "yes" is not a boolean, expected true or false$/,
    ],
    [
      'config.toml',
      '[rpc]\nladdr = "localhost"',
      /^config\.toml: rpc\.laddr: "localhost" is not a listen address, expected "tcp:\/\/<host>:<port>"$/,
    ],
    [
      'config.toml',
      '[mempool]\nsize = 0',
      /^config\.toml: mempool\.size: 0 is out of range, expected an integer >= 1$/,
    ],
    [
      'config.toml',
      '[statesync]\ntrust-hash = "abc"',
      /trust-hash: "abc" is not a 32-byte hex hash, expected a string$/,
    ],
    [
      'app.toml',
      '[evm]\ndeny_list = "eth_call"',
      /^app\.toml: evm\.deny_list: "eth_call" is not an array of strings/,
    ],
    ['app.toml', '[evm]\nhttp_port = 1.5', /^app\.toml: evm\.http_port: 1\.5 is not an integer/],
    ['app.toml', 'not toml at all', /^app\.toml: invalid TOML: /],
  ];
  for (const [file, text, re] of cases) {
    const files = { 'config.toml': '', 'app.toml': '', [file]: text };
    assert.throws(
      () => loadConfig({ home: home(t, files), env: {} }),
      (e: unknown) => e instanceof ConfigError && re.test(e.message),
      text,
    );
  }
});

test('an unknown flag is refused', (t) => {
  assert.throws(
    () => loadConfig({ home: home(t, rendered()), env: {}, flags: { 'evm.turbo': '1' } }),
    /flag --evm\.turbo: no such configuration key/,
  );
});

test('durations parse and render in Go form', () => {
  assert.equal(parseDuration('400ms'), 400);
  assert.equal(parseDuration('1h30m'), 5_400_000);
  assert.equal(parseDuration('0'), 0);
  assert.equal(parseDuration('1.5s'), 1500);
  assert.equal(parseDuration('5'), undefined);
  assert.equal(parseDuration('5 s'), undefined);
  assert.equal(formatDuration(168 * 3_600_000), '168h');
  assert.equal(formatDuration(400), '400ms');
  assert.equal(formatDuration(0), '0s');
});

test('listen addresses', () => {
  assert.deepEqual(parseListenAddress('tcp://127.0.0.1:26657'), { host: '127.0.0.1', port: 26657 });
  assert.deepEqual(parseListenAddress(':26660'), { host: '0.0.0.0', port: 26660 });
  assert.deepEqual(parseListenAddress('[::1]:9090'), { host: '::1', port: 9090 });
  assert.equal(parseListenAddress('host:99999'), undefined);
  assert.equal(parseListenAddress('nohost'), undefined);
});

test('state-sync snapshot-chunk-bytes: default 10 MiB; below 1 KiB or above what a CometBFT chunk message carries is refused', (t) => {
  const h = home(t, rendered());
  assert.equal(loadConfig({ home: h, env: {} }).config.app.stateSync.snapshotChunkBytes, 10 * 1024 * 1024);
  const set = (v: string) =>
    loadConfig({ home: h, env: {}, flags: { 'state-sync.snapshot-chunk-bytes': v } }).config.app.stateSync
      .snapshotChunkBytes;
  assert.equal(set('4096'), 4096);
  for (const v of ['1000', String(16_000_000)])
    assert.throws(() => set(v), /snapshot-chunk-bytes.*out of range.*an integer from 1024 to 15728640/);
});
