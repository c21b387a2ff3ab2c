/** Every admission rule of the mempool, each with geth's exact message. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RLP } from '@ethereumjs/rlp';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { recoverAddress } from '../../../src/execution/ecrecover.ts';
import { concatBytes, fromHex } from '../../../src/primitives/bytes.ts';
import { Mempool, MempoolError, type MempoolRejectReason } from '../../../src/mempool/index.ts';
import {
  BLOCK_GAS_LIMIT,
  CHAIN_ID,
  ETHER,
  GWEI,
  MemAccounts,
  addr,
  decode,
  harness,
  hex,
  signTx,
  wallets,
} from './helpers.ts';

const [alice, bob] = wallets;

async function rejects(
  pool: Mempool,
  raw: Uint8Array,
  reason: MempoolRejectReason,
  message: string | RegExp,
) {
  await assert.rejects(pool.checkTx(raw), (err: unknown) => {
    assert.ok(err instanceof MempoolError, String(err));
    assert.equal(err.code, 'TX_REJECTED');
    assert.equal(err.reason, reason);
    if (typeof message === 'string') assert.equal(err.message, message);
    else assert.match(err.message, message);
    return true;
  });
}

test('a valid EIP-1559 tx is admitted as pending and announced', async () => {
  const { pool } = harness();
  const seen: string[] = [];
  pool.onPending((tx) => seen.push(hex(tx.hash)));
  const raw = await signTx(alice);
  const tx = await pool.checkTx(raw);
  assert.equal(hex(tx.sender), alice.address.toLowerCase());
  assert.equal(pool.pending(), 1);
  assert.equal(pool.queued(), 0);
  assert.deepEqual(pool.get(keccak_256(raw)), tx);
  assert.deepEqual(seen, [hex(keccak_256(raw))]);
  assert.equal(await pool.pendingNonce(addr(alice)), 1n);
  assert.equal(await pool.pendingNonce(addr(bob)), 0n);
});

test('chain id', async () => {
  const { pool } = harness();
  await rejects(
    pool,
    await signTx(alice, { chainId: 1n }),
    'invalid_chain_id',
    `invalid chain id: have 1 want ${CHAIN_ID}`,
  );
});

test('the pool checks the chain id of its params too (a miswired decoder cannot leak foreign txs)', async () => {
  const { pool, params } = harness();
  params.chainId = 1n;
  await rejects(pool, await signTx(alice), 'invalid_chain_id', `invalid chain id: have ${CHAIN_ID} want 1`);
});

test('signature: high s and unrecoverable signatures are refused', async () => {
  const { pool } = harness();
  const raw = await signTx(alice);
  const values = RLP.decode(raw.subarray(1)) as Uint8Array[];
  const patched = (i: number, v: bigint) => {
    const copy = [...values];
    const h = v.toString(16);
    copy[i] = fromHex(h.length % 2 ? '0' + h : h); // RLP scalars are minimal big-endian
    return concatBytes(Uint8Array.of(2), RLP.encode(copy));
  };
  const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
  const s = BigInt(hex(values[11]));
  await rejects(pool, patched(11, N - s), 'invalid_signature', 'invalid transaction v, r, s values');
  // an r that is no curve point's x coordinate
  let r = 5n;
  while (recovers(r)) r++;
  await rejects(pool, patched(10, r), 'invalid_sender', 'invalid sender');
});

function recovers(r: bigint): boolean {
  try {
    recoverAddress(
      new Uint8Array(32).fill(1),
      0,
      fromHex(r.toString(16).padStart(64, '0')),
      Uint8Array.of(1),
    );
    return true;
  } catch {
    return false;
  }
}

test('pre-EIP-155 legacy txs are refused', async () => {
  const { pool } = harness();
  await rejects(
    pool,
    await signTx(alice, { type: 0, chainId: 0n }),
    'not_replay_protected',
    'only replay-protected (EIP-155) transactions allowed over RPC',
  );
  // the replay-protected legacy form is fine
  await pool.checkTx(await signTx(alice, { type: 0 }));
});

test('nonce too low', async () => {
  const { pool, accounts } = harness();
  accounts.set(alice.address, { nonce: 5n });
  await rejects(
    pool,
    await signTx(alice, { nonce: 3 }),
    'nonce_too_low',
    'nonce too low: next nonce 5, tx nonce 3',
  );
  await pool.checkTx(await signTx(alice, { nonce: 5 }));
});

test('insufficient funds for gas * price + value', async () => {
  const { pool, accounts } = harness();
  const cost = 21000n * 2n * GWEI + ETHER;
  accounts.set(alice.address, { balance: cost - 1n });
  await rejects(
    pool,
    await signTx(alice, { value: ETHER }),
    'insufficient_funds',
    `insufficient funds for gas * price + value: balance ${cost - 1n}, tx cost ${cost}`,
  );
  accounts.set(bob.address, { balance: cost });
  await pool.checkTx(await signTx(bob, { value: ETHER })); // exactly enough
});

test('fee cap below the base fee', async () => {
  const { pool, params } = harness();
  params.baseFeeValue = 3n * GWEI;
  await rejects(
    pool,
    await signTx(alice, { maxFeePerGas: 3n * GWEI - 1n }),
    'fee_cap_below_base_fee',
    'max fee per gas less than block base fee',
  );
  await rejects(
    pool,
    await signTx(alice, { type: 0, gasPrice: 2n * GWEI }),
    'fee_cap_below_base_fee',
    /less than block base fee/,
  );
  await pool.checkTx(await signTx(alice, { maxFeePerGas: 3n * GWEI }));
});

test('gas limit above the block gas limit', async () => {
  const { pool } = harness({}, 1000n * ETHER);
  await rejects(
    pool,
    await signTx(alice, { gasLimit: BLOCK_GAS_LIMIT + 1n }),
    'gas_limit_exceeded',
    'exceeds block gas limit',
  );
  await pool.checkTx(await signTx(alice, { gasLimit: BLOCK_GAS_LIMIT }));
});

test('intrinsic gas, including the EIP-7623 calldata floor', async () => {
  const { pool } = harness();
  await rejects(
    pool,
    await signTx(alice, { gasLimit: 20999n }),
    'intrinsic_gas_too_low',
    'intrinsic gas too low',
  );
  const data = '0x' + 'ff'.repeat(100); // standard 22600, floor 25000
  await rejects(
    pool,
    await signTx(alice, { data, gasLimit: 24999n }),
    'intrinsic_gas_too_low',
    'intrinsic gas too low',
  );
  await pool.checkTx(await signTx(alice, { data, gasLimit: 25000n }));
});

test('size limit', async () => {
  const { pool, params } = harness();
  const raw = await signTx(alice, { data: '0x' + '01'.repeat(600), gasLimit: 100000n });
  params.maxTxBytes = raw.length - 1;
  await rejects(
    pool,
    raw,
    'oversized',
    `oversized data: transaction size ${raw.length}, limit ${raw.length - 1}`,
  );
});

test('blob txs and malformed bytes', async () => {
  const { pool } = harness();
  const blob = await signTx(alice, {
    type: 3,
    blobVersionedHashes: ['0x01' + '00'.repeat(31)],
    maxFeePerBlobGas: 1n,
  });
  await rejects(pool, blob, 'tx_type_not_supported', 'transaction type not supported');
  await rejects(pool, Uint8Array.of(0xc1, 0x01), 'malformed', /rlp: expected 9 fields/);
  await rejects(pool, Uint8Array.of(0x02, 0x81), 'malformed', /^rlp: /);
});

test('duplicates: "already known" in the pool; a mined one sent again: "nonce too low", as geth words it', async () => {
  const { pool, accounts } = harness();
  const raw = await signTx(alice);
  await pool.checkTx(raw);
  await rejects(pool, raw, 'already_known', 'already known');
  // committed: leaves the pool, the hash stays in the seen cache
  accounts.set(alice.address, { nonce: 1n });
  await pool.update(1, [keccak_256(raw)], accounts);
  assert.equal(pool.size, 0);
  await rejects(pool, raw, 'nonce_too_low', 'nonce too low: next nonce 1, tx nonce 0');
  // while the sender has txs pooled, its committed nonce comes from the pool's record
  await pool.checkTx(await signTx(alice, { nonce: 1 }));
  await rejects(pool, raw, 'nonce_too_low', 'nonce too low: next nonce 1, tx nonce 0');
});

test("a cached hash whose nonce is still unused keeps the cache's answer", async () => {
  const { pool } = harness();
  const cheap = await signTx(alice);
  await pool.checkTx(cheap);
  // replaced: the first tx leaves the pool, its hash stays seen, and nonce 0 is still unused
  await pool.checkTx(await signTx(alice, { maxFeePerGas: 4n * GWEI, maxPriorityFeePerGas: 2n * GWEI }));
  await rejects(pool, cheap, 'already_in_cache', 'tx already exists in cache');
});

test('two concurrent submissions of one tx: exactly one is admitted', async () => {
  const { pool } = harness();
  const raw = await signTx(alice);
  const results = await Promise.allSettled([pool.checkTx(raw), pool.checkTx(raw)]);
  assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
  const failed = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
  assert.equal((failed.reason as MempoolError).reason, 'already_known');
  assert.equal(pool.size, 1);
});

test('a block committed during admission makes it re-read the account', async () => {
  const { pool, accounts } = harness();
  const raw = await signTx(alice, { nonce: 0 });
  const admission = pool.checkTx(raw); // reads nonce 0 from the old reader …
  const next = new MemAccounts();
  next.set(alice.address, { nonce: 1n, balance: ETHER });
  await pool.update(1, [], next); // … while a block moves alice to nonce 1
  await assert.rejects(admission, /nonce too low: next nonce 1, tx nonce 0/);
});

test('decoder-level invariants hold for everything admitted', async () => {
  const { pool } = harness();
  const raw = await signTx(alice, { type: 1, nonce: 0 });
  const tx = await pool.checkTx(raw);
  assert.deepEqual(tx.hash, decode(raw).hash);
  assert.equal(tx.maxPriorityFeePerGas, tx.maxFeePerGas);
});
