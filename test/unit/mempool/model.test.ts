/**
 * Model test: seeded random submissions (future nonces, replacements, duplicates) and blocks (commits
 * of pending txs, nonces used elsewhere, balance drops), checked after every step against a plain
 * model of the admission rules: outcome and reason of each submission, pool size, pending/queued
 * split, pending nonces, and that reap returns exactly the executable txs in per-sender nonce order.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { MempoolError } from '../../../src/mempool/index.ts';
import { toHex } from '../../../src/primitives/bytes.ts';
import { ETHER, GWEI, addr, harness, signTx, wallets } from './helpers.ts';

const SENDERS = wallets.slice(0, 4);
const NONCES = 40;
const LEVELS = [
  { maxFeePerGas: 2n * GWEI, maxPriorityFeePerGas: GWEI },
  { maxFeePerGas: 3n * GWEI, maxPriorityFeePerGas: 2n * GWEI }, // a valid replacement of level 0
];
const valueOf = (nonce: number) => (nonce % 3 === 2 ? 5n * ETHER : 1n);

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Signed {
  raw: Uint8Array;
  key: string;
  sender: number;
  nonce: number;
  level: number;
  cost: bigint;
}

test('mempool matches a model of its rules over 600 random steps', async () => {
  const signed: Signed[][][] = [];
  for (let s = 0; s < SENDERS.length; s++) {
    signed.push([]);
    for (let n = 0; n < NONCES; n++) {
      signed[s].push([]);
      for (let l = 0; l < LEVELS.length; l++) {
        const raw = await signTx(SENDERS[s], { nonce: n, value: valueOf(n), ...LEVELS[l] });
        const cost = 21000n * LEVELS[l].maxFeePerGas + valueOf(n);
        signed[s][n].push({ raw, key: toHex(keccak_256(raw)), sender: s, nonce: n, level: l, cost });
      }
    }
  }

  const { pool, accounts } = harness();
  const state = SENDERS.map(() => ({ nonce: 0n, balance: 100n * ETHER }));
  const model = SENDERS.map(() => new Map<number, Signed>()); // nonce -> tx in pool
  const cached = new Set<string>();
  const random = rng(42);
  const pick = (n: number) => Math.floor(random() * n);
  const run = (s: number) => {
    let n = Number(state[s].nonce);
    while (model[s].has(n)) n++;
    return n - Number(state[s].nonce);
  };
  let height = 0;
  const outcomes = new Map<string, number>();

  for (let step = 0; step < 600; step++) {
    if (random() < 0.85) {
      // around the sender's next nonce: stale, executable, and future nonces
      const s = pick(SENDERS.length);
      const nonce = Math.min(NONCES - 1, Math.max(0, Number(state[s].nonce) + pick(7) - 1));
      const t = signed[s][nonce][pick(LEVELS.length)];
      const existing = model[t.sender].get(t.nonce);
      let expected: string;
      if (existing?.key === t.key) expected = 'already_known';
      else if (BigInt(t.nonce) < state[t.sender].nonce) expected = 'nonce_too_low';
      else if (cached.has(t.key)) expected = 'already_in_cache';
      else if (t.cost > state[t.sender].balance) expected = 'insufficient_funds';
      else if (existing && !(existing.level === 0 && t.level === 1)) expected = 'replacement_underpriced';
      else expected = 'admitted';
      let got = 'admitted';
      try {
        await pool.checkTx(t.raw);
      } catch (err) {
        assert.ok(err instanceof MempoolError, String(err));
        got = err.reason;
      }
      outcomes.set(got, (outcomes.get(got) ?? 0) + 1);
      assert.equal(got, expected, `step ${step}: sender ${t.sender} nonce ${t.nonce} level ${t.level}`);
      if (got === 'admitted') {
        model[t.sender].set(t.nonce, t);
        cached.add(t.key);
      }
    } else {
      // A block: one sender's pending txs are committed (or its nonce is used elsewhere), balances move.
      const s = pick(SENDERS.length);
      const pending = run(s);
      const k = pick(pending + 2);
      const committed: Uint8Array[] = [];
      for (let i = 0; i < Math.min(k, pending); i++) {
        committed.push(model[s].get(Number(state[s].nonce) + i)!.raw);
      }
      const committedKeys = new Set(committed.map((raw) => toHex(keccak_256(raw))));
      state[s].nonce += BigInt(k);
      if (random() < 0.3) state[pick(SENDERS.length)].balance = random() < 0.5 ? 3n * ETHER : 100n * ETHER;
      SENDERS.forEach((w, i) => accounts.set(w.address, state[i]));
      await pool.update(
        ++height,
        committed.map((raw) => keccak_256(raw)),
        accounts,
      );
      for (const key of committedKeys) cached.add(key);
      for (let i = 0; i < SENDERS.length; i++) {
        for (const [nonce, t] of model[i]) {
          if (BigInt(nonce) < state[i].nonce || t.cost > state[i].balance) {
            model[i].delete(nonce);
            if (!committedKeys.has(t.key)) cached.delete(t.key);
          }
        }
      }
    }

    // invariants
    const total = model.reduce((n, m) => n + m.size, 0);
    const pendingTotal = SENDERS.reduce((n, _, i) => n + run(i), 0);
    assert.equal(pool.size, total, `step ${step}: size`);
    assert.equal(pool.pending(), pendingTotal, `step ${step}: pending`);
    assert.equal(pool.queued(), total - pendingTotal, `step ${step}: queued`);
    for (let i = 0; i < SENDERS.length; i++) {
      assert.equal(
        await pool.pendingNonce(addr(SENDERS[i])),
        state[i].nonce + BigInt(run(i)),
        `step ${step}`,
      );
      for (const t of model[i].values()) assert.ok(pool.get(keccak_256(t.raw)), `step ${step}: missing tx`);
    }
    const reaped = pool.reap(10n ** 12n);
    assert.equal(reaped.length, pendingTotal, `step ${step}: reap size`);
    const lastNonce = new Map<string, bigint>();
    for (const tx of reaped) {
      const who = toHex(tx.sender);
      const i = SENDERS.findIndex((w) => w.address.toLowerCase() === '0x' + who);
      const prev = lastNonce.get(who) ?? state[i].nonce - 1n;
      assert.equal(tx.nonce, prev + 1n, `step ${step}: nonce order`);
      lastNonce.set(who, tx.nonce);
    }
  }
  assert.ok(height > 50, 'enough blocks were exercised');
  for (const reason of [
    'admitted',
    'already_known',
    'already_in_cache',
    'nonce_too_low',
    'insufficient_funds',
    'replacement_underpriced',
  ]) {
    assert.ok(
      (outcomes.get(reason) ?? 0) >= 10,
      `outcome ${reason} exercised (${outcomes.get(reason) ?? 0})`,
    );
  }
});
