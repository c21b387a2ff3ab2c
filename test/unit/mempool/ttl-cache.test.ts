/** TTL expiry after each block, the seen-hash cache and `keep-invalid-txs-in-cache`. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { MempoolError, type Mempool } from '../../../src/mempool/index.ts';
import { ETHER, GWEI, harness, signTx, wallets } from './helpers.ts';

const [alice, bob, carol] = wallets;

async function reason(pool: Mempool, raw: Uint8Array): Promise<string> {
  try {
    await pool.checkTx(raw);
    return 'admitted';
  } catch (err) {
    assert.ok(err instanceof MempoolError, String(err));
    return err.reason;
  }
}

test('TTL by blocks: a tx admitted at height h expires at the first block above h + ttlNumBlocks', async () => {
  const { pool, accounts } = harness({ ttlNumBlocks: 2 });
  const raw = await signTx(alice, { nonce: 0 });
  await pool.checkTx(raw); // admitted at height 0
  await pool.update(1, [], accounts);
  await pool.checkTx(await signTx(bob, { nonce: 0 })); // admitted at height 1
  await pool.update(2, [], accounts);
  assert.equal(pool.size, 2);
  await pool.update(3, [], accounts);
  assert.equal(pool.get(keccak_256(raw)), undefined);
  assert.equal(pool.size, 1);
  await pool.update(4, [], accounts);
  assert.equal(pool.size, 0);
  // expiry is not invalidity: the same bytes can be submitted again
  assert.equal(await reason(pool, raw), 'admitted');
});

test('TTL by time: txs older than ttlDurationMs are expired after the next block', async () => {
  const { pool, accounts, clock } = harness({ ttlDurationMs: 1000 });
  const old = await signTx(alice, { nonce: 0 });
  await pool.checkTx(old);
  clock.now += 600;
  const young = await signTx(bob, { nonce: 0 });
  await pool.checkTx(young);
  clock.now += 1000; // old is 1600 ms, young 1000 ms (not more than the limit)
  assert.equal(pool.size, 2, 'nothing expires between blocks');
  await pool.update(1, [], accounts);
  assert.equal(pool.get(keccak_256(old)), undefined);
  assert.ok(pool.get(keccak_256(young)));
  clock.now += 1;
  await pool.update(2, [], accounts);
  assert.equal(pool.size, 0);
});

test('either TTL limit expires a tx; 0 disables each', async () => {
  const off = harness({ ttlDurationMs: 0, ttlNumBlocks: 0 });
  await off.pool.checkTx(await signTx(alice));
  off.clock.now += 10 ** 9;
  await off.pool.update(1000, [], off.accounts);
  assert.equal(off.pool.size, 1);

  const both = harness({ ttlDurationMs: 1000, ttlNumBlocks: 100 });
  await both.pool.checkTx(await signTx(alice));
  both.clock.now += 1001; // time limit hit long before the block limit
  await both.pool.update(1, [], both.accounts);
  assert.equal(both.pool.size, 0);
});

test('expiring a pending tx sends its sender’s later nonces back to the queue', async () => {
  const { pool, accounts, clock } = harness({ ttlDurationMs: 1000 });
  await pool.checkTx(await signTx(alice, { nonce: 0 }));
  clock.now += 500;
  await pool.checkTx(await signTx(alice, { nonce: 1 }));
  clock.now += 501;
  await pool.update(1, [], accounts);
  assert.deepEqual([pool.pending(), pool.queued()], [0, 1]);
  assert.deepEqual(pool.reap(1_000_000n), []);
});

test('keep-invalid-txs-in-cache off: a rejected tx is checked again on resubmission', async () => {
  const { pool, accounts } = harness({ keepInvalidTxsInCache: false });
  const raw = await signTx(alice, { value: 1000n * ETHER });
  assert.equal(await reason(pool, raw), 'insufficient_funds');
  assert.equal(await reason(pool, raw), 'insufficient_funds');
  accounts.set(alice.address, { balance: 2000n * ETHER });
  assert.equal(await reason(pool, raw), 'admitted');
});

test('keep-invalid-txs-in-cache on: a rejected tx is refused from the cache', async () => {
  const { pool, accounts } = harness({ keepInvalidTxsInCache: true });
  const raw = await signTx(alice, { value: 1000n * ETHER });
  assert.equal(await reason(pool, raw), 'insufficient_funds');
  accounts.set(alice.address, { balance: 2000n * ETHER });
  assert.equal(await reason(pool, raw), 'already_in_cache');
  // malformed bytes are remembered too
  assert.equal(await reason(pool, Uint8Array.of(0xc1, 0x01)), 'malformed');
  assert.equal(await reason(pool, Uint8Array.of(0xc1, 0x01)), 'already_in_cache');
  // a full pool is not a verdict on the tx: never cached
  const full = harness({ keepInvalidTxsInCache: true, size: 1 });
  await full.pool.checkTx(await signTx(bob));
  const waiting = await signTx(carol);
  assert.equal(await reason(full.pool, waiting), 'txpool_full');
  assert.equal(await reason(full.pool, waiting), 'txpool_full');
});

test('txs a block makes unpayable: cached only with keep-invalid-txs-in-cache', async () => {
  for (const keep of [false, true]) {
    const { pool, accounts } = harness({ keepInvalidTxsInCache: keep });
    const raw = await signTx(alice, { value: 50n * ETHER });
    await pool.checkTx(raw);
    accounts.set(alice.address, { balance: ETHER });
    await pool.update(1, [], accounts);
    assert.equal(pool.size, 0);
    assert.equal(await reason(pool, raw), keep ? 'already_in_cache' : 'insufficient_funds');
  }
});

test('cache-size bounds the seen-hash LRU; 0 disables it', async () => {
  const { pool } = harness({ keepInvalidTxsInCache: true, cacheSize: 1 });
  const a = await signTx(alice, { maxFeePerGas: GWEI / 2n, maxPriorityFeePerGas: 1n });
  const b = await signTx(bob, { maxFeePerGas: GWEI / 2n, maxPriorityFeePerGas: 1n });
  assert.equal(await reason(pool, a), 'fee_cap_below_base_fee');
  assert.equal(await reason(pool, b), 'fee_cap_below_base_fee'); // pushes a out
  assert.equal(await reason(pool, a), 'fee_cap_below_base_fee');
  assert.equal(await reason(pool, a), 'already_in_cache');

  const nocache = harness({ keepInvalidTxsInCache: true, cacheSize: 0 });
  const committed = await signTx(alice);
  await nocache.pool.checkTx(committed);
  nocache.accounts.set(alice.address, { nonce: 1n });
  await nocache.pool.update(1, [keccak_256(committed)], nocache.accounts);
  assert.equal(await reason(nocache.pool, committed), 'nonce_too_low');
  assert.equal(await reason(nocache.pool, committed), 'nonce_too_low');
});
