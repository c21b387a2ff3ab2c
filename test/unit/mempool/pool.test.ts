/** Future-nonce queuing and promotion, replacement, capacity, reaping, and per-block re-checks. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { MempoolError } from '../../../src/mempool/index.ts';
import type { DecodedEthTx } from '../../../src/execution/transactions.ts';
import { ETHER, GWEI, MemAccounts, addr, harness, hex, signTx, wallets } from './helpers.ts';

const [alice, bob, carol, dave] = wallets;
const label = (txs: readonly DecodedEthTx[]) =>
  txs.map((t) => `${wallets.findIndex((w) => w.address.toLowerCase() === hex(t.sender))}:${t.nonce}`);

test('future nonces are queued and promoted when the gap closes', async () => {
  const { pool } = harness();
  const announced: DecodedEthTx[] = [];
  pool.onPending((tx) => announced.push(tx));
  await pool.checkTx(await signTx(alice, { nonce: 2 }));
  await pool.checkTx(await signTx(alice, { nonce: 3 }));
  assert.deepEqual([pool.pending(), pool.queued()], [0, 2]);
  assert.equal(await pool.pendingNonce(addr(alice)), 0n);
  assert.deepEqual(pool.reap(10_000_000n), []);

  await pool.checkTx(await signTx(alice, { nonce: 0 }));
  assert.deepEqual([pool.pending(), pool.queued()], [1, 2]);
  assert.equal(await pool.pendingNonce(addr(alice)), 1n);

  await pool.checkTx(await signTx(alice, { nonce: 1 }));
  assert.deepEqual([pool.pending(), pool.queued()], [4, 0]);
  assert.equal(await pool.pendingNonce(addr(alice)), 4n);
  assert.deepEqual(label(announced), ['0:0', '0:1', '0:2', '0:3']);
  assert.deepEqual(label(pool.reap(10_000_000n)), ['0:0', '0:1', '0:2', '0:3']);
});

test('a committed block closes the gap: queued txs are promoted by update', async () => {
  const { pool, accounts } = harness();
  const first = await signTx(alice, { nonce: 0 });
  await pool.checkTx(await signTx(alice, { nonce: 1 }));
  assert.deepEqual([pool.pending(), pool.queued()], [0, 1]);
  const announced: DecodedEthTx[] = [];
  pool.onPending((tx) => announced.push(tx));
  // nonce 0 arrived through another node and was committed
  accounts.set(alice.address, { nonce: 1n });
  await pool.update(1, [keccak_256(first)], accounts);
  assert.deepEqual([pool.pending(), pool.queued()], [1, 0]);
  assert.deepEqual(label(announced), ['0:1']);
});

test('update drops included and stale-nonce txs and re-checks balances', async () => {
  const { pool, accounts } = harness();
  const txs = [];
  for (let n = 0; n < 4; n++) txs.push(await signTx(alice, { nonce: n, value: n === 2 ? 10n * ETHER : 1n }));
  for (const raw of txs) await pool.checkTx(raw);
  assert.equal(pool.pending(), 4);
  // block includes nonce 0; the balance falls below what nonce 2 needs
  accounts.set(alice.address, { nonce: 1n, balance: 5n * ETHER });
  await pool.update(1, [keccak_256(txs[0])], accounts);
  assert.equal(pool.get(keccak_256(txs[0])), undefined);
  assert.equal(pool.get(keccak_256(txs[2])), undefined, 'unpayable tx dropped');
  assert.deepEqual([pool.pending(), pool.queued()], [1, 1], 'nonce 3 waits behind the gap');
  assert.equal(await pool.pendingNonce(addr(alice)), 2n);
  // a tx that takes nonce 2 again promotes nonce 3
  await pool.checkTx(await signTx(alice, { nonce: 2, value: 2n }));
  assert.deepEqual([pool.pending(), pool.queued()], [3, 0]);
});

test('replacement needs ≥10% higher fee cap and tip: 9% refused, 10% accepted', async () => {
  const { pool } = harness();
  const fee = { maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: 10n * GWEI };
  const original = await signTx(alice, { ...fee });
  await pool.checkTx(original);
  for (const [feeCap, tip] of [
    [109n * GWEI, 11n * GWEI], // fee cap +9%
    [110n * GWEI, 10n * GWEI], // tip unchanged
    [200n * GWEI, (109n * GWEI) / 10n], // tip +9% (10.9 gwei)
  ]) {
    const raw = await signTx(alice, { maxFeePerGas: feeCap, maxPriorityFeePerGas: tip });
    await assert.rejects(pool.checkTx(raw), (err: unknown) => {
      assert.ok(err instanceof MempoolError);
      assert.equal(err.reason, 'replacement_underpriced');
      assert.equal(err.message, 'replacement transaction underpriced');
      return true;
    });
  }
  const replacement = await signTx(alice, { maxFeePerGas: 110n * GWEI, maxPriorityFeePerGas: 11n * GWEI });
  await pool.checkTx(replacement);
  assert.equal(pool.get(keccak_256(original)), undefined);
  assert.equal(pool.get(keccak_256(replacement))?.maxFeePerGas, 110n * GWEI);
  assert.deepEqual([pool.pending(), pool.queued()], [1, 0]);

  // a queued tx is replaced in place and stays queued
  await pool.checkTx(await signTx(alice, { nonce: 5, ...fee }));
  await pool.checkTx(
    await signTx(alice, { nonce: 5, maxFeePerGas: 120n * GWEI, maxPriorityFeePerGas: 20n * GWEI }),
  );
  assert.deepEqual([pool.pending(), pool.queued()], [1, 1]);
});

test('a full pool evicts its lowest-priority queued tx, else refuses with "txpool is full"', async () => {
  const { pool, accounts } = harness({ size: 3 });
  const aliceZero = await signTx(alice, { nonce: 0 });
  await pool.checkTx(aliceZero);
  const cheapFuture = await signTx(bob, { nonce: 4, maxFeePerGas: 2n * GWEI });
  const richFuture = await signTx(carol, { nonce: 4, maxFeePerGas: 5n * GWEI });
  await pool.checkTx(cheapFuture);
  await pool.checkTx(richFuture);
  assert.equal(pool.size, 3);

  // a queued tx cheaper than every queued tx cannot push one out
  const cheaper = await signTx(dave, { nonce: 9, maxFeePerGas: GWEI });
  await assert.rejects(pool.checkTx(cheaper), { reason: 'txpool_full', message: 'txpool is full' });
  // an executable tx evicts the cheapest future
  await pool.checkTx(await signTx(dave, { nonce: 0 }));
  assert.equal(pool.get(keccak_256(cheapFuture)), undefined);
  assert.ok(pool.get(keccak_256(richFuture)));
  // a richer future evicts the remaining one
  await pool.checkTx(await signTx(bob, { nonce: 7, maxFeePerGas: 9n * GWEI }));
  assert.equal(pool.get(keccak_256(richFuture)), undefined);
  assert.deepEqual([pool.pending(), pool.queued(), pool.size], [2, 1, 3]);

  // only pending txs left: nothing to evict
  await pool.checkTx(await signTx(alice, { nonce: 1 }));
  const refused = await signTx(carol, { nonce: 0 });
  await assert.rejects(pool.checkTx(refused), { reason: 'txpool_full' });
  // "full" is not a verdict on the tx (not cached): once a block makes room it is admitted
  accounts.set(alice.address, { nonce: 1n });
  await pool.update(1, [keccak_256(aliceZero)], accounts);
  await pool.checkTx(refused);
  assert.equal(pool.size, 3);
});

test('reap: effective-tip priority across senders, nonce order within one, gas and count limits', async () => {
  const { pool, params } = harness();
  params.baseFeeValue = GWEI;
  const f = (tipGwei: bigint, capGwei = 100n) => ({
    maxPriorityFeePerGas: tipGwei * GWEI,
    maxFeePerGas: capGwei * GWEI,
  });
  await pool.checkTx(await signTx(alice, { nonce: 0, ...f(3n) }));
  await pool.checkTx(await signTx(alice, { nonce: 1, ...f(1n) }));
  await pool.checkTx(await signTx(alice, { nonce: 2, ...f(9n) })); // behind a cheaper nonce of its sender
  await pool.checkTx(await signTx(bob, { nonce: 0, ...f(2n) }));
  await pool.checkTx(await signTx(carol, { nonce: 0, ...f(1n) })); // ties with alice:1, arrived later
  // tip 2.5 gwei but fee cap 2.5 gwei too: its effective tip at base fee 1 gwei is only 1.5 gwei
  const capped = (25n * GWEI) / 10n;
  await pool.checkTx(await signTx(dave, { nonce: 0, maxPriorityFeePerGas: capped, maxFeePerGas: capped }));

  assert.deepEqual(label(pool.reap(1_000_000n)), ['0:0', '1:0', '3:0', '0:1', '0:2', '2:0']);
  assert.deepEqual(label(pool.reap(1_000_000n, 3)), ['0:0', '1:0', '3:0']);
  assert.deepEqual(label(pool.reap(21000n * 4n)), ['0:0', '1:0', '3:0', '0:1']);
  // at base fee 3 gwei dave's fee cap can no longer pay: not executable, not reaped
  assert.deepEqual(label(pool.reap(1_000_000n, undefined, 3n * GWEI)), ['0:0', '1:0', '0:1', '0:2', '2:0']);
});

test('reap skips a sender whose next tx does not fit and keeps filling with others', async () => {
  const { pool } = harness();
  await pool.checkTx(await signTx(alice, { nonce: 0, gasLimit: 500_000n, maxPriorityFeePerGas: 2n * GWEI }));
  await pool.checkTx(await signTx(alice, { nonce: 1, maxPriorityFeePerGas: 2n * GWEI }));
  await pool.checkTx(await signTx(bob, { nonce: 0 }));
  const picked = pool.reap(100_000n);
  assert.deepEqual(label(picked), ['1:0']);
  assert.ok(picked.reduce((g, t) => g + t.gasLimit, 0n) <= 100_000n);
});

test('a sender unknown to the pool reads its state once; known senders need no reads', async () => {
  const { pool, accounts } = harness();
  await pool.checkTx(await signTx(alice, { nonce: 0 }));
  const reads = accounts.reads;
  await pool.checkTx(await signTx(alice, { nonce: 1 }));
  assert.equal(accounts.reads, reads);
  const fresh = new MemAccounts();
  fresh.set(alice.address, { nonce: 0n, balance: ETHER });
  await pool.update(1, [], fresh);
  assert.equal(fresh.reads, 2, 'one nonce and one balance read per sender per block');
});

test('remove: the producer drops an unexecutable tx; later nonces wait; the cache follows keep-invalid', async () => {
  for (const keep of [false, true]) {
    const { pool } = harness({ keepInvalidTxsInCache: keep });
    const first = await signTx(alice, { nonce: 0 });
    await pool.checkTx(first);
    await pool.checkTx(await signTx(alice, { nonce: 1 }));
    assert.equal(pool.remove(keccak_256(first), true), true);
    assert.equal(pool.remove(keccak_256(first), true), false);
    assert.deepEqual([pool.pending(), pool.queued()], [0, 1]);
    if (keep) {
      await assert.rejects(pool.checkTx(first), { reason: 'already_in_cache' });
    } else {
      await pool.checkTx(first);
      assert.equal(pool.pending(), 2, 'resubmitted, and the gap closed');
    }
  }
});

test('restore (a dev chain revert): the txs of txs() again on the rolled-back state, later ones gone, every hash sendable again', async () => {
  const { pool, accounts } = harness();
  const a0 = await signTx(alice, { nonce: 0 });
  const a2 = await signTx(alice, { nonce: 2 });
  await pool.checkTx(a0);
  await pool.checkTx(a2);
  const snapshot = pool.txs();
  assert.deepEqual(label(snapshot), ['0:0', '0:2']);

  // after the snapshot: a0 mined, a tx of bob's admitted, alice's gap closed
  const mined = keccak_256(a0);
  accounts.set(alice.address, { nonce: 1n });
  await pool.update(1, [mined], accounts);
  const b0 = await signTx(bob, { nonce: 0 });
  await pool.checkTx(b0);
  await pool.checkTx(await signTx(alice, { nonce: 1 }));
  assert.deepEqual([pool.pending(), pool.queued()], [3, 0]);

  // the chain goes back: alice's nonce is 0 again
  accounts.set(alice.address, { nonce: 0n });
  await pool.restore(snapshot, accounts, 0);
  assert.deepEqual([pool.pending(), pool.queued()], [1, 1], 'a0 pending, a2 queued behind the gap');
  assert.deepEqual(label(pool.reap(10_000_000n)), ['0:0']);
  assert.equal(pool.has(keccak_256(b0)), false, 'a tx admitted after the snapshot is gone');
  // a hash seen since (mined in a rolled-back block, or dropped) may be sent again
  await pool.checkTx(b0);
  await assert.rejects(
    pool.checkTx(a0),
    (e: Error) => e instanceof MempoolError && e.reason === 'already_known',
  );

  // a tx whose nonce the rolled-back state already used is left out
  accounts.set(alice.address, { nonce: 1n });
  await pool.restore(snapshot, accounts, 1);
  assert.deepEqual(label(pool.txs()), ['0:2']);
  assert.equal(await pool.pendingNonce(addr(alice)), 1n);
});
