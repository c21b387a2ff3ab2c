import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { openFork, type ForkTarget } from '../../../src/fork/fork.ts';
import { silentLogger } from '../../../src/util/logger.ts';

const TARGET: ForkTarget = {
  url: 'http://a.test',
  blockNumber: 7,
  blockHash: '0x' + '11'.repeat(32),
  chainId: '1',
};

test('the fork target is recorded in the home and is what every later open reads', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'fork-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  assert.equal(await openFork(dir, undefined, silentLogger), undefined, 'not a fork');

  const first = await openFork(dir, { url: TARGET.url, target: TARGET }, silentLogger);
  assert.deepEqual(first?.target, TARGET);
  await first!.close();
  assert.deepEqual(JSON.parse(readFileSync(join(dir, 'fork', 'fork.json'), 'utf8')), TARGET);

  // no flags: the recorded fork
  const again = await openFork(dir, undefined, silentLogger);
  assert.deepEqual(again?.target, TARGET);
  await again!.close();
  // another endpoint of the same block is taken and recorded
  const moved = await openFork(dir, { url: 'http://b.test', blockNumber: 7 }, silentLogger);
  assert.equal(moved?.target.url, 'http://b.test');
  await moved!.close();
  // another block is refused
  await assert.rejects(
    openFork(dir, { url: 'http://b.test', blockNumber: 8 }, silentLogger),
    /fork of block 7, not 8/,
  );
});

test('a chain that exists and is not a fork does not become one', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'fork-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'state_commit'));
  await assert.rejects(openFork(dir, { url: TARGET.url, target: TARGET }, silentLogger), /not a fork/);
  assert.equal(existsSync(join(dir, 'fork', 'fork.json')), false);
});

test('retarget: a reset re-forks another remote or block, forgetting every cached value', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'fork-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const fork = (await openFork(dir, { url: TARGET.url, target: TARGET }, silentLogger))!;
  t.after(() => fork.close());
  fork.cache.put([{ store: 'evm', key: new Uint8Array([10, 1]), value: new Uint8Array([1]) }]);
  await fork.cache.flush();
  const next = { ...TARGET, url: 'http://c.test', blockNumber: 9 };
  assert.deepEqual(await fork.retarget({ url: next.url, target: next }), next);
  assert.equal(fork.cache.get('evm', new Uint8Array([10, 1])), undefined);
  assert.deepEqual(JSON.parse(readFileSync(join(dir, 'fork', 'fork.json'), 'utf8')), next);
});
