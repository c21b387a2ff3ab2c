/**
 * A dev chain's records: one encoding per record (anything else is not one), a patch body that does
 * not decode is named, and a patch applied through the modules keeps the bank's supply the sum of the
 * balances and deletes what it zeroes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { AccountReader } from '../../../src/app/accounts.ts';
import { BankReader } from '../../../src/app/bank.ts';
import {
  DEV_STATE_PATCH_TYPE_URL,
  isDevRecord,
  unwrapDevRecord,
  wrapDevRecord,
} from '../../../src/app/dev-records.ts';
import { applyDevStatePatch, type DevStateEdit } from '../../../src/app/dev-state-patch.ts';
import { evmKeys, STORES } from '../../../src/app/store-keys.ts';
import { wrapEthTransaction } from '../../../src/execution/tx-wrap.ts';
import { ChainError } from '../../../src/util/errors.ts';
import { devState } from '../../helpers/dev-chain.ts';

const A = new Uint8Array(20).fill(0xa1);
const SLOT = new Uint8Array(32).fill(0x01);
const WORD = (n: number) => {
  const w = new Uint8Array(32);
  w[31] = n;
  return w;
};

test('each record round-trips, and only its own encoding is one', () => {
  const edits: DevStateEdit[] = [
    { op: 'setBalance', address: A, wei: 10n ** 18n + 7n },
    { op: 'addBalance', address: A, wei: 1n },
    { op: 'setNonce', address: A, nonce: 3n },
    { op: 'setCode', address: A, code: Uint8Array.of(0x60, 0x00) },
    { op: 'setStorage', address: A, slot: SLOT, value: WORD(9) },
    { op: 'setNextBaseFee', wei: 5n },
    { op: 'setCoinbase', address: A },
    { op: 'setPrevRandao', value: WORD(1) },
    { op: 'setGasLimit', gas: 30_000_000n },
  ];
  const patch = wrapDevRecord({ kind: 'statePatch', edits });
  assert.deepEqual(unwrapDevRecord(patch), { kind: 'statePatch', edits });
  const raw = Uint8Array.of(0x02, 0xc0);
  const imp = wrapDevRecord({ kind: 'impersonated', sender: A, raw });
  assert.deepEqual(unwrapDevRecord(imp), { kind: 'impersonated', sender: A, raw });

  // an Ethereum tx's wrapper, or a record with a signature or a second message, is not a record
  assert.equal(unwrapDevRecord(wrapEthTransaction(raw)), undefined);
  const decoded = TxRaw.decode(patch);
  assert.equal(
    unwrapDevRecord(TxRaw.encode({ ...decoded, signatures: [Uint8Array.of(1)] }).finish()),
    undefined,
  );
  const body = TxBody.decode(decoded.bodyBytes);
  const twice = TxBody.encode({ ...body, messages: [...body.messages, ...body.messages] }).finish();
  assert.equal(unwrapDevRecord(TxRaw.encode({ ...decoded, bodyBytes: twice }).finish()), undefined);
  assert.equal(isDevRecord(Uint8Array.of(1, 2, 3)), false);

  // a patch whose body does not decode is a record that says what is wrong
  const badBody = TxRaw.encode({
    bodyBytes: TxBody.encode(
      TxBody.fromPartial({
        messages: [{ typeUrl: DEV_STATE_PATCH_TYPE_URL, value: Buffer.from('[{"op":"burn"}]') }],
      }),
    ).finish(),
    authInfoBytes: new Uint8Array(0),
    signatures: [],
  }).finish();
  assert.throws(
    () => unwrapDevRecord(badBody),
    (e: unknown) => e instanceof ChainError && /edit 0: unknown op "burn"/.test(e.message),
  );
  assert.equal(isDevRecord(badBody), true);
});

test('a patch sets balances with the supply, nonces, code and slots, and deletes what it zeroes', () => {
  const { overlay } = devState();
  const bank = new BankReader(overlay);
  const supply = bank.supply();
  applyDevStatePatch(overlay, [
    { op: 'setBalance', address: A, wei: 5n * 10n ** 12n + 3n },
    { op: 'addBalance', address: A, wei: 10n ** 12n },
    { op: 'setNonce', address: A, nonce: 2n },
    { op: 'setCode', address: A, code: Uint8Array.of(0x00) },
    { op: 'setStorage', address: A, slot: SLOT, value: WORD(4) },
  ]);
  const accounts = new AccountReader(overlay);
  assert.equal(accounts.balance(A), 6n * 10n ** 12n + 3n);
  assert.equal(bank.supply(), supply + 6n, 'the supply counts whole uchain');
  assert.equal(accounts.nonce(A), 2n);
  assert.deepEqual(accounts.storage(A, SLOT), WORD(4));

  applyDevStatePatch(overlay, [
    { op: 'setBalance', address: A, wei: 0n },
    { op: 'setNonce', address: A, nonce: 0n },
    { op: 'setCode', address: A, code: new Uint8Array(0) },
    { op: 'setStorage', address: A, slot: SLOT, value: WORD(0) },
  ]);
  assert.equal(bank.supply(), supply);
  for (const key of [evmKeys.nonce(A), evmKeys.code(A), evmKeys.codeHash(A), evmKeys.storage(A, SLOT)])
    assert.equal(overlay.get(STORES.evm, key), undefined);
  assert.equal(accounts.balance(A), 0n);
});
