/** Token buckets per client in shared memory: refill, burst, debt, eviction, and threads sharing one table. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { parseAddress } from '../../../../src/rpc/server/client-address.ts';
import { QuotaTable, quotaMemory } from '../../../../src/rpc/server/quota.ts';

const a = (s: string) => parseAddress(s)!;

test('a bucket spends its burst, refuses with the wait until it holds the cost, and refills at the rate', () => {
  let now = 1_000_000;
  const q = new QuotaTable(quotaMemory(64), 10, 20, () => now);
  const c = a('198.51.100.1');
  for (let i = 0; i < 4; i++) assert.deepEqual(q.charge(c, 5), { ok: true });
  // empty: 5 units at 10/s is 500 ms away
  assert.deepEqual(q.charge(c, 5), { ok: false, retryAfterMs: 500 });
  // another client has its own bucket
  assert.deepEqual(q.charge(a('198.51.100.2'), 20), { ok: true });
  now += 499;
  assert.equal(q.charge(c, 5).ok, false);
  now += 1;
  assert.deepEqual(q.charge(c, 5), { ok: true });
  // a long pause refills no more than the burst
  now += 60_000;
  assert.deepEqual(q.charge(c, 20), { ok: true });
  assert.equal(q.charge(c, 1).ok, false);
});

test('a payload over the burst passes on a full bucket and leaves it in debt', () => {
  let now = 5_000;
  const q = new QuotaTable(quotaMemory(64), 10, 20, () => now);
  const c = a('2001:db8::1');
  assert.deepEqual(q.charge(c, 50), { ok: true });
  // 30 units of debt, then 1 unit needed: 3.1 s
  assert.deepEqual(q.charge(c, 1), { ok: false, retryAfterMs: 3100 });
  now += 3100;
  assert.deepEqual(q.charge(c, 1), { ok: true });
  // a second large one waits for a full bucket again
  assert.equal(q.charge(c, 50).ok, false);
});

test('memory is bounded: idle clients give their slot up, the stalest goes when a window is busy', () => {
  let now = 1_000;
  const q = new QuotaTable(quotaMemory(16), 1, 10, () => now);
  for (let i = 0; i < 100; i++) {
    now++;
    q.charge(a(`198.51.100.${i}`), 5);
  }
  assert.ok(q.tracked() <= 16, `${q.tracked()} clients tracked in 16 slots`);
  // once their buckets refilled (10 s at 1/s), none is tracked any more
  now += 20_000;
  assert.equal(q.tracked(), 0);
});

test('threads charging one shared table spend one budget', async () => {
  const memory = quotaMemory(64);
  // every thread starts charging at the same moment, so that their charges interleave
  const barrier = new SharedArrayBuffer(4);
  const code = `
    const { workerData, parentPort } = require('node:worker_threads');
    const { QuotaTable } = require(workerData.module);
    const q = new QuotaTable(workerData.memory, 0.001, 200000, () => 1);
    const c = new Uint32Array([0, 0, 0xffff, 0xc6336401]);
    const b = new Int32Array(workerData.barrier);
    Atomics.add(b, 0, 1);
    while (Atomics.load(b, 0) < 4);
    let ok = 0;
    for (let i = 0; i < 100000; i++) if (q.charge(c, 1).ok) ok++;
    parentPort.postMessage(ok);
  `;
  const module = new URL('../../../../src/rpc/server/quota.ts', import.meta.url).pathname;
  const runs = await Promise.all(
    [0, 1, 2, 3].map(
      () =>
        new Promise<number>((resolve, reject) => {
          const w = new Worker(code, { eval: true, workerData: { memory, module, barrier } });
          w.once('message', resolve);
          w.once('error', reject);
        }),
    ),
  );
  // 4 threads x 100,000 charges of 1 against a burst of 200,000 (the clock stands still)
  assert.equal(
    runs.reduce((x, y) => x + y, 0),
    200000,
  );
});
