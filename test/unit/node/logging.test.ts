import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { createLogger, formatPlain } from '../../../src/node/logging.ts';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _e, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return { lines, destination };
}

test('json lines carry level name, time, module, msg and fields; lower levels are dropped', () => {
  const { lines, destination } = capture();
  const log = createLogger({ level: 'info', format: 'json', destination }).child({ module: 'ss' });
  log.debug('hidden');
  log.info({ backend: 'pebbledb' }, 'ChainDB SS is enabled');
  assert.equal(lines.length, 1);
  const rec = JSON.parse(lines[0]);
  assert.deepEqual(
    { ...rec, time: undefined },
    { level: 'info', time: undefined, module: 'ss', backend: 'pebbledb', msg: 'ChainDB SS is enabled' },
  );
  assert.ok(!Number.isNaN(Date.parse(rec.time)));
});

test('trace is the most detailed level', () => {
  const { lines, destination } = capture();
  const log = createLogger({ level: 'trace', format: 'json', destination });
  log.trace('t');
  log.debug('d');
  assert.deepEqual(
    lines.map((l) => JSON.parse(l).level),
    ['trace', 'debug'],
  );
});

test('plain lines are readable and quote values with spaces', () => {
  assert.equal(
    formatPlain({
      level: 'warn',
      time: '2026-01-01T00:00:00.000Z',
      module: 'config',
      msg: 'hello world',
      key: 'a b',
      n: 3,
    }),
    '2026-01-01T00:00:00.000Z WRN [config] hello world key="a b" n=3',
  );
  const { lines, destination } = capture();
  createLogger({ level: 'info', format: 'plain', destination })
    .child({ module: 'node' })
    .info({ dir: '/x' }, 'up');
  assert.match(lines[0], /^\S+Z INF \[node\] up dir=\/x$/);
});

test('a line names each key once: modules nest as a dotted path, the innermost value wins, line keys stay the line’s', () => {
  const { lines, destination } = capture();
  const sc = createLogger({ level: 'info', format: 'json', destination }).child({ module: 'sc', store: 'a' });
  const memiavl = sc.child({ module: 'memiavl', store: 'b' });
  memiavl.info({ store: 'c', time: 5, msg: 'field', level: 'x' }, 'opened');
  sc.info({ module: 'flush' }, 'done');
  for (const line of lines) assert.equal(line.match(/"module":/g)?.length, 1, line);
  const [a, b] = lines.map((l) => JSON.parse(l));
  assert.deepEqual(
    { ...a, time: undefined },
    {
      level: 'info',
      time: undefined,
      module: 'sc.memiavl',
      store: 'c',
      field_time: 5,
      field_msg: 'field',
      field_level: 'x',
      msg: 'opened',
    },
  );
  assert.equal(b.module, 'sc.flush');
  assert.equal(b.store, 'a');
});
