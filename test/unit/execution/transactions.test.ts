import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RLP } from '@ethereumjs/rlp';
import { createTxFromRLP } from '@ethereumjs/tx';
import { TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { Transaction, Wallet } from 'ethers';
import { recoverPublicKeyNative } from '../../../src/execution/ecrecover.ts';
import {
  EthTxError,
  MSG_EVM_TRANSACTION_TYPE_URL,
  decodeEthTransaction,
  encodeMsgEVMTransaction,
  unwrapEthTransaction,
  wrapEthTransaction,
  type DecodedEthTx,
} from '../../../src/execution/transactions.ts';
import { concatBytes, fromHex } from '../../../src/primitives/bytes.ts';
import { CHAIN_ID, GWEI, RECIPIENT, common, hex, signTx, wallets } from '../mempool/helpers.ts';

const wallet = wallets[1];
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

function rejects(raw: Uint8Array, reason: string, message: string | RegExp): void {
  assert.throws(
    () => decodeEthTransaction(raw, common),
    (err: unknown) => {
      assert.ok(err instanceof EthTxError, String(err));
      assert.equal(err.code, 'ETH_TX_INVALID');
      assert.equal(err.reason, reason);
      if (typeof message === 'string') assert.equal(err.message, message);
      else assert.match(err.message, message);
      return true;
    },
  );
}

function checkCommon(d: DecodedEthTx, raw: Uint8Array): void {
  assert.equal(hex(d.sender), wallet.address.toLowerCase());
  assert.equal(hex(d.hash), Transaction.from(hex(raw)).hash);
  assert.deepEqual(d.tx.hash(), d.hash); // served from the cache seeded by the decoder
  assert.deepEqual(d.tx.getSenderAddress().bytes, d.sender);
  assert.ok(Object.isFrozen(d.tx));
  // the decoder hashes the signed message itself; ethereumjs's own recovery must agree with it
  // the decoder hashes the signed message itself; ethereumjs's own recovery agrees with it
  assert.equal(hex(createTxFromRLP(raw, { common }).getSenderAddress().bytes), hex(d.sender));
  assert.equal(d.size, raw.length);
  assert.deepEqual(d.raw, raw);
  assert.ok(Object.isFrozen(d));
}

/** Re-encodes a typed tx with some RLP fields replaced (the signature no longer matters to the check). */
function patchTyped(raw: Uint8Array, patch: Record<number, Uint8Array>): Uint8Array {
  const values = RLP.decode(raw.subarray(1)) as Uint8Array[];
  for (const [i, v] of Object.entries(patch)) values[Number(i)] = v;
  return concatBytes(raw.subarray(0, 1), RLP.encode(values));
}

/** 32-byte big-endian. */
const big = (n: bigint) => fromHex(n.toString(16).padStart(64, '0'));
/** Minimal big-endian, as RLP scalars are. */
const unpadded = (n: bigint) =>
  n === 0n
    ? new Uint8Array(0)
    : fromHex(n.toString(16).padStart(2 * Math.ceil(n.toString(16).length / 2), '0'));

test('EIP-1559 transfer: fields, sender, hash', async () => {
  const raw = await signTx(wallet, {
    nonce: 7,
    value: 5n,
    maxFeePerGas: 3n * GWEI,
    maxPriorityFeePerGas: 2n * GWEI,
  });
  const d = decodeEthTransaction(raw, common);
  checkCommon(d, raw);
  assert.equal(d.type, 2);
  assert.equal(d.nonce, 7n);
  assert.equal(d.gasLimit, 21000n);
  assert.equal(d.maxFeePerGas, 3n * GWEI);
  assert.equal(d.maxPriorityFeePerGas, 2n * GWEI);
  assert.equal(d.value, 5n);
  assert.equal(hex(d.to!), RECIPIENT);
  assert.equal(d.chainId, CHAIN_ID);
  assert.equal(d.intrinsicGas, 21000n);
});

test('legacy EIP-155 and pre-EIP-155 transactions', async () => {
  const raw = await signTx(wallet, { type: 0, gasPrice: 4n * GWEI, nonce: 1 });
  const d = decodeEthTransaction(raw, common);
  checkCommon(d, raw);
  assert.equal(d.type, 0);
  assert.equal(d.chainId, CHAIN_ID);
  assert.equal(d.maxFeePerGas, 4n * GWEI);
  assert.equal(d.maxPriorityFeePerGas, 4n * GWEI);

  const pre155 = await signTx(wallet, { type: 0, chainId: 0n });
  assert.ok([27, 28].includes(Number(Transaction.from(hex(pre155)).signature!.v)));
  const p = decodeEthTransaction(pre155, common);
  checkCommon(p, pre155);
  assert.equal(p.chainId, undefined);
});

test('EIP-2930 contract creation with an access list: intrinsic gas', async () => {
  const raw = await signTx(wallet, {
    type: 1,
    to: null,
    data: '0x6000',
    gasLimit: 100000n,
    accessList: [{ address: RECIPIENT, storageKeys: ['0x' + '00'.repeat(32), '0x' + '01'.repeat(32)] }],
  });
  const d = decodeEthTransaction(raw, common);
  checkCommon(d, raw);
  assert.equal(d.type, 1);
  assert.equal(d.to, null);
  // 21000 + 32000 creation + 16 + 4 calldata + 2 init-code word + 2400 address + 2 × 1900 keys
  assert.equal(d.intrinsicGas, 21000n + 32000n + 20n + 2n + 2400n + 3800n);
});

test('EIP-7702 set-code transaction: authorization cost', async () => {
  const auth = await wallet.authorize({ address: '0x' + '33'.repeat(20), nonce: 1, chainId: CHAIN_ID });
  const raw = await signTx(wallet, { type: 4, gasLimit: 100000n, authorizationList: [auth, auth] });
  const d = decodeEthTransaction(raw, common);
  checkCommon(d, raw);
  assert.equal(d.type, 4);
  assert.equal(d.intrinsicGas, 21000n + 2n * 25000n);
});

test('EIP-7623 calldata floor raises the intrinsic gas of data-heavy txs', async () => {
  const raw = await signTx(wallet, { data: '0x' + 'ff'.repeat(1000), gasLimit: 100000n });
  const d = decodeEthTransaction(raw, common);
  // standard 21000 + 16 × 1000 = 37000 < floor 21000 + 10 × 4 × 1000 = 61000
  assert.equal(d.intrinsicGas, 61000n);
});

test('blob and unknown types are not supported', async () => {
  const blob = await signTx(wallet, {
    type: 3,
    blobVersionedHashes: ['0x01' + '00'.repeat(31)],
    maxFeePerBlobGas: 1n,
  });
  assert.equal(blob[0], 3);
  rejects(blob, 'tx_type_not_supported', 'transaction type not supported');
  rejects(Uint8Array.of(5, 0xc0), 'tx_type_not_supported', 'transaction type not supported');
});

test('a foreign chain id is refused with have/want (typed and legacy)', async () => {
  rejects(
    await signTx(wallet, { chainId: 1n }),
    'invalid_chain_id',
    `invalid chain id: have 1 want ${CHAIN_ID}`,
  );
  rejects(
    await signTx(wallet, { type: 0, chainId: 5n }),
    'invalid_chain_id',
    `invalid chain id: have 5 want ${CHAIN_ID}`,
  );
});

test('signature values: high s, bad v, unrecoverable r', async () => {
  const raw = await signTx(wallet);
  const values = RLP.decode(raw.subarray(1)) as Uint8Array[];
  const s = BigInt(hex(values[11]));
  const highS = patchTyped(raw, { 11: unpadded(N - s) });
  rejects(highS, 'invalid_signature', 'invalid transaction v, r, s values');
  rejects(
    patchTyped(raw, { 9: Uint8Array.of(2) }),
    'invalid_signature',
    'invalid transaction v, r, s values',
  );
  rejects(
    patchTyped(raw, { 10: new Uint8Array(0) }),
    'invalid_signature',
    'invalid transaction v, r, s values',
  );
  // an r that is not the x coordinate of any curve point cannot be recovered
  let bad = 1n;
  const probe = (r: bigint) => {
    try {
      recoverPublicKeyNative!(new Uint8Array(32).fill(1), concatBytes(big(r), big(1n)), 0);
      return false;
    } catch {
      return true;
    }
  };
  while (!probe(bad)) bad++;
  rejects(patchTyped(raw, { 10: unpadded(bad) }), 'invalid_sender', 'invalid sender');
});

test('tip above fee cap is refused with geth wording', async () => {
  const raw = await signTx(wallet);
  rejects(
    patchTyped(raw, { 2: unpadded(5n * GWEI) }),
    'tip_above_fee_cap',
    `max priority fee per gas higher than max fee per gas: maxPriorityFeePerGas: ${5n * GWEI}, maxFeePerGas: ${2n * GWEI}`,
  );
});

test('malformed bytes carry the decoding error', async () => {
  const raw = await signTx(wallet);
  rejects(new Uint8Array(0), 'malformed', 'typed transaction too short');
  rejects(raw.subarray(0, raw.length - 3), 'malformed', /^rlp: /);
  rejects(Uint8Array.of(0x82, 1, 2), 'malformed', /^rlp: expected input list/);
  rejects(concatBytes(Uint8Array.of(2), RLP.encode([Uint8Array.of(1)])), 'malformed', /expected 12 fields/);
  rejects(patchTyped(raw, { 1: Uint8Array.of(0, 1) }), 'malformed', /leading zero/i);
  rejects(concatBytes(raw, Uint8Array.of(0)), 'malformed', /^rlp: /);
});

test('TxRaw wrapping is deterministic, canonical and reversible', async () => {
  const raw = await signTx(wallet, { nonce: 3 });
  const wrapped = wrapEthTransaction(raw);
  assert.deepEqual(wrapEthTransaction(raw), wrapped);
  const txRaw = TxRaw.decode(wrapped);
  assert.equal(txRaw.authInfoBytes.length, 0);
  assert.equal(txRaw.signatures.length, 0);
  const body = TxBody.decode(txRaw.bodyBytes);
  assert.equal(body.messages.length, 1);
  assert.equal(body.messages[0].typeUrl, MSG_EVM_TRANSACTION_TYPE_URL);
  assert.equal(MSG_EVM_TRANSACTION_TYPE_URL, '/chain.evm.v1.MsgEVMTransaction');
  // MsgEVMTransaction field 1 (bytes): key 0x0a, varint length (one byte below 128), the raw tx
  assert.ok(raw.length < 128);
  assert.deepEqual(body.messages[0].value, concatBytes(Uint8Array.of(0x0a, raw.length), raw));
  assert.deepEqual(unwrapEthTransaction(wrapped), raw);

  // anything but the exact wrapper is not an Ethereum tx
  const withMemo = TxRaw.encode(
    TxRaw.fromPartial({ bodyBytes: TxBody.encode({ ...body, memo: 'hi' }).finish() }),
  ).finish();
  assert.equal(unwrapEthTransaction(withMemo), undefined);
  const signed = TxRaw.encode({ ...txRaw, signatures: [Uint8Array.of(1)] }).finish();
  assert.equal(unwrapEthTransaction(signed), undefined);
  const otherType = TxRaw.encode(
    TxRaw.fromPartial({
      bodyBytes: TxBody.encode({
        ...body,
        messages: [{ typeUrl: '/cosmos.bank.v1beta1.MsgSend', value: raw }],
      }).finish(),
    }),
  ).finish();
  assert.equal(unwrapEthTransaction(otherType), undefined);
  assert.equal(unwrapEthTransaction(Uint8Array.of(0xff, 0xff, 0xff)), undefined);
  assert.equal(unwrapEthTransaction(new Uint8Array(0)), undefined);
});

test('a big raw tx gets a multi-byte length varint', () => {
  const raw = new Uint8Array(300).fill(7);
  assert.deepEqual(encodeMsgEVMTransaction(raw).subarray(0, 3), Uint8Array.of(0x0a, 0xac, 0x02));
  assert.deepEqual(unwrapEthTransaction(wrapEthTransaction(raw)), raw);
});

test('another wallet signs, the sender follows', async () => {
  const other = Wallet.createRandom();
  const d = decodeEthTransaction(await signTx(other as unknown as Wallet), common);
  assert.equal(hex(d.sender), other.address.toLowerCase());
});

test('the hand-written TxRaw wrapper is byte for byte the cosmjs-types encoding', () => {
  for (const size of [1, 2, 100, 115, 116, 127, 128, 300, 16_370, 16_384, 70_000]) {
    const raw = new Uint8Array(size).map((_, i) => (i * 7 + size) & 0xff);
    const viaCosmjs = TxRaw.encode(
      TxRaw.fromPartial({
        bodyBytes: TxBody.encode(
          TxBody.fromPartial({
            messages: [{ typeUrl: MSG_EVM_TRANSACTION_TYPE_URL, value: encodeMsgEVMTransaction(raw) }],
          }),
        ).finish(),
      }),
    ).finish();
    assert.deepEqual(wrapEthTransaction(raw), viaCosmjs, `size ${size}`);
    assert.deepEqual(unwrapEthTransaction(viaCosmjs), raw, `size ${size}`);
    // an over-long length varint decodes to the same tx but is not the canonical wrapper
    const overlong = Uint8Array.from([
      viaCosmjs[0],
      ...[0x80 | viaCosmjs[1]],
      0x00,
      ...viaCosmjs.subarray(2),
    ]);
    if (viaCosmjs[1] < 0x80) assert.equal(unwrapEthTransaction(overlong), undefined);
  }
});
