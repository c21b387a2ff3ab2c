import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { defaultConfig } from '../../../src/config/load.ts';
import { fitConnectionCaps, openFileLimit } from '../../../src/node/descriptors.ts';
import { type LogRecord, memoryLogger, silentLogger } from '../../../src/util/logger.ts';

test('openFileLimit reads the soft limit from a /proc limits file; absent: undefined', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'limits-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'limits');
  writeFileSync(
    file,
    'Limit                     Soft Limit           Hard Limit           Units     \n' +
      'Max processes             127451               127451               processes \n' +
      'Max open files            4096                 524288               files     \n',
  );
  assert.equal(openFileLimit(file), 4096);
  writeFileSync(file, 'Max open files            unlimited            unlimited            files\n');
  assert.equal(openFileLimit(file), Number.POSITIVE_INFINITY);
  assert.equal(openFileLimit(join(dir, 'missing')), undefined);
});

test('connection caps: kept when they fit the limit minus the reserve, else scaled down in proportion', () => {
  const cfg = defaultConfig();
  const sum = (c: typeof cfg) =>
    c.app.evm.httpMaxConnections +
    c.app.evm.wsMaxConnections +
    c.config.rpc.maxOpenConnections +
    c.app.api.maxOpenConnections +
    c.app.grpc.maxOpenConnections +
    c.config.instrumentation.maxOpenConnections;
  // the defaults fit a common limit with the reserve left
  assert.ok(sum(cfg) + 1024 <= 8192, `default caps sum to ${sum(cfg)}`);
  assert.deepEqual(fitConnectionCaps(cfg, 8192, silentLogger), cfg);
  assert.deepEqual(fitConnectionCaps(cfg, undefined, silentLogger), cfg);

  const records: LogRecord[] = [];
  const fitted = fitConnectionCaps(cfg, 1024, memoryLogger(records));
  // the reserve is half of a small limit: 512 descriptors for the listeners
  assert.ok(sum(fitted) <= 512, `fitted caps sum to ${sum(fitted)}`);
  assert.ok(fitted.app.evm.wsMaxConnections >= 100);
  assert.equal(fitted.config.instrumentation.maxOpenConnections, 1);
  assert.equal(cfg.app.evm.wsMaxConnections, 1000, 'the given config is left as it was');
  const warn = records.find((r) => r.level === 'warn');
  assert.ok(warn, 'a warning names the lowered caps');
  assert.match(String(warn.fields['[evm] ws_max_connections']), /^1000 -> \d+$/);

  // a disabled listener's cap does not count
  const noWs = defaultConfig();
  noWs.app.evm.wsEnabled = false;
  noWs.app.api.enable = false;
  const f2 = fitConnectionCaps(noWs, 1024, silentLogger);
  assert.equal(f2.app.evm.wsMaxConnections, 1000);
  assert.ok(f2.app.evm.httpMaxConnections > fitted.app.evm.httpMaxConnections);
});
