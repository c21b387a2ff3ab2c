/**
 * The association tx of chain_associate: canonical encoding (one request, one hash), key recovery
 * from v 0/1, the refusals of admission and execution, and the association it writes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { keccak256, Wallet } from 'ethers';
import {
  type AssociationRequest,
  encodeAssociationTx,
  MSG_ASSOCIATE_TYPE_URL,
} from '../../../src/app/association-tx.ts';
import { BankReader } from '../../../src/app/bank.ts';
import { checkCosmosTx, deliverCosmosTx } from '../../../src/app/cosmos-deliver.ts';
import { CosmosTxError } from '../../../src/app/cosmos-errors.ts';
import { decodeCosmosTx } from '../../../src/app/cosmos-tx.ts';
import { Bank } from '../../../src/app/bank.ts';
import { EvmReader } from '../../../src/app/evm.ts';
import { accountFromPrivateKey } from '../../../src/crypto/accounts.ts';
import { StateOverlay } from '../../../src/state/overlay.ts';

const key = Uint8Array.from(Buffer.alloc(32, 0x5a));
const wallet = new Wallet('0x' + Buffer.from(key).toString('hex'));
const account = accountFromPrivateKey(key);
const ctx = { chainId: 'it-1', maxBlockGas: 10_000_000n };
const noMinimum = { numerator: 0n, denominator: 1n };

function request(text: string): AssociationRequest {
  const message = new TextEncoder().encode(text);
  const sig = wallet.signingKey.sign(keccak256(message));
  return {
    customMessage: message,
    r: Buffer.from(sig.r.slice(2), 'hex'),
    s: Buffer.from(sig.s.slice(2), 'hex'),
    v: sig.yParity,
  };
}

function emptyState(): StateOverlay {
  return new StateOverlay({ get: () => undefined });
}

test('encoding: an unsigned TxRaw with one MsgAssociate; decoding recovers the key; other encodings are refused', () => {
  const raw = encodeAssociationTx(request('hello'));
  const txRaw = TxRaw.decode(raw);
  assert.equal(txRaw.authInfoBytes.length, 0);
  assert.equal(txRaw.signatures.length, 0);
  const tx = decodeCosmosTx(raw);
  assert.ok(tx.association);
  assert.deepEqual(tx.association.evmAddress, account.evmAddress);
  assert.deepEqual(tx.signer, account.cosmosAddress);
  assert.equal(tx.fee, 0n);
  assert.deepEqual(tx.msgs, []);

  // the same request with a Cosmos signature attached is another encoding of it: refused
  const withSignature = TxRaw.encode({ ...txRaw, signatures: [new Uint8Array(64)] }).finish();
  assert.throws(
    () => decodeCosmosTx(withSignature),
    (e: unknown) => e instanceof CosmosTxError && e.abciCode === 2,
  );
  assert.match(MSG_ASSOCIATE_TYPE_URL, /MsgAssociate$/);
});

test('refused without balance and once associated; execution links both addresses and moves the cast balance', () => {
  const tx = decodeCosmosTx(encodeAssociationTx(request('link')));
  const overlay = emptyState();
  assert.throws(
    () => checkCosmosTx(tx, overlay, ctx, noMinimum),
    /holds any balance: an association needs at least 1 wei on one of them/,
  );
  new Bank(overlay).addWei(account.evmAddress, 5n);
  checkCosmosTx(tx, overlay, ctx, noMinimum);
  const outcome = deliverCosmosTx(tx, overlay, ctx);
  assert.equal(outcome.code, 0);
  const evm = new EvmReader(overlay);
  assert.deepEqual(evm.cosmosAddressOf(account.evmAddress), account.cosmosAddress);
  assert.deepEqual(evm.evmAddressOf(account.cosmosAddress), account.evmAddress);
  assert.equal(new BankReader(overlay).wei(account.cosmosAddress), 5n);
  assert.equal(new BankReader(overlay).wei(account.evmAddress), 0n);
  assert.throws(() => checkCosmosTx(tx, overlay, ctx, noMinimum), /is already associated/);
  assert.throws(() => deliverCosmosTx(tx, overlay, ctx), /is already associated/);
});
