/**
 * The signed tx: what the chain's own decoder accepts, a signature that verifies over the SignDoc,
 * and the very bytes CosmJS's SigningStargateClient signs for the same inputs (RFC 6979 signatures
 * are deterministic, so the TxRaw bytes must be equal).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DirectSecp256k1Wallet, Registry } from '@cosmjs/proto-signing';
import { defaultRegistryTypes, SigningStargateClient } from '@cosmjs/stargate';
import { MsgSend } from 'cosmjs-types/cosmos/bank/v1beta1/tx';
import { MsgDelegate } from 'cosmjs-types/cosmos/staking/v1beta1/tx';
import { SignMode } from 'cosmjs-types/cosmos/tx/signing/v1beta1/signing';
import { AuthInfo, SignDoc, TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { decodeCosmosTx, signDocBytes } from '../../../../src/app/cosmos-tx.ts';
import type { SendMsg } from '../../../../src/app/msg-send.ts';
import { signTx, unsignedForSimulation } from '../../../../src/cli/tx/sign.ts';
import { delegateMsg } from '../../../../src/cli/tx/messages.ts';
import { accountsFromMnemonic, toAccAddress, toValoperAddress } from '../../../../src/crypto/accounts.ts';
import { verifySecp256k1 } from '../../../../src/crypto/secp256k1-verify.ts';

const [signer, other] = accountsFromMnemonic(
  'test test test test test test test test test test test junk',
  2,
);
const FROM = toAccAddress(signer.cosmosAddress);
const TO = toAccAddress(other.cosmosAddress);
const VALOPER = toValoperAddress(other.cosmosAddress);
const CHAIN_ID = 'chaind-dev';

const sendMsg = {
  typeUrl: '/cosmos.bank.v1beta1.MsgSend',
  value: MsgSend.encode({
    fromAddress: FROM,
    toAddress: TO,
    amount: [{ denom: 'uchain', amount: '7' }],
  }).finish(),
};
const params = {
  memo: 'hello',
  signer,
  chainId: CHAIN_ID,
  accountNumber: 3n,
  sequence: 5n,
  gasLimit: 200_000n,
  fee: 200n,
};

test('a signed MsgSend passes the chain decoder, and its signature verifies over the SignDoc', () => {
  const raw = signTx({ ...params, messages: [sendMsg] });
  const tx = decodeCosmosTx(raw);
  assert.deepEqual(tx.signer, signer.cosmosAddress);
  assert.equal(tx.sequence, 5n);
  assert.equal(tx.gasLimit, 200_000n);
  assert.equal(tx.fee, 200n);
  assert.equal(tx.memo, 'hello');
  assert.equal((tx.msgs[0] as SendMsg).amount, 7n);
  assert.ok(verifySecp256k1(tx.publicKey, signDocBytes(tx, CHAIN_ID, 3n), tx.signature));
  // signed for this chain and account number only
  assert.ok(!verifySecp256k1(tx.publicKey, signDocBytes(tx, 'other-chain', 3n), tx.signature));
  assert.ok(!verifySecp256k1(tx.publicKey, signDocBytes(tx, CHAIN_ID, 4n), tx.signature));
});

test('a staking tx: SIGN_MODE_DIRECT, one secp256k1 signer, the signature over its SignDoc', () => {
  const raw = signTx({ ...params, messages: [delegateMsg(FROM, VALOPER, 1_000_000n)] });
  const txRaw = TxRaw.decode(raw);
  const body = TxBody.decode(txRaw.bodyBytes);
  assert.equal(body.messages[0].typeUrl, '/cosmos.staking.v1beta1.MsgDelegate');
  assert.equal(MsgDelegate.decode(body.messages[0].value).amount.amount, '1000000');
  const auth = AuthInfo.decode(txRaw.authInfoBytes);
  assert.equal(auth.signerInfos.length, 1);
  assert.equal(auth.signerInfos[0].modeInfo?.single?.mode, SignMode.SIGN_MODE_DIRECT);
  assert.equal(auth.signerInfos[0].publicKey?.typeUrl, '/cosmos.crypto.secp256k1.PubKey');
  assert.deepEqual(auth.fee?.amount, [{ denom: 'uchain', amount: '200' }]);
  const doc = SignDoc.encode({
    bodyBytes: txRaw.bodyBytes,
    authInfoBytes: txRaw.authInfoBytes,
    chainId: CHAIN_ID,
    accountNumber: 3n,
  }).finish();
  assert.ok(verifySecp256k1(signer.publicKey, doc, txRaw.signatures[0]));
});

test('the same bytes as CosmJS SigningStargateClient.sign for the same inputs', async () => {
  const wallet = await DirectSecp256k1Wallet.fromKey(signer.privateKey, 'chain');
  const client = await SigningStargateClient.offline(wallet, {
    registry: new Registry(defaultRegistryTypes),
  });
  const messages = [delegateMsg(FROM, VALOPER, 1_000_000n)];
  const theirs = await client.sign(
    FROM,
    [{ typeUrl: messages[0].typeUrl, value: MsgDelegate.decode(messages[0].value) }],
    { amount: [{ denom: 'uchain', amount: '200' }], gas: '200000' },
    'hello',
    { accountNumber: 3n, sequence: 5, chainId: CHAIN_ID },
  );
  assert.deepEqual(Buffer.from(signTx({ ...params, messages })), Buffer.from(TxRaw.encode(theirs).finish()));
});

test('the tx for Simulate: unsigned, sign mode unspecified, gas 0, as the node simulates it', () => {
  const raw = unsignedForSimulation({ messages: [sendMsg], memo: '', signer, sequence: 5n });
  const tx = decodeCosmosTx(raw, { simulate: true });
  assert.equal(tx.signature.length, 0);
  assert.equal(tx.gasLimit, 0n);
  assert.equal(tx.fee, 0n);
  assert.equal(tx.sequence, 5n);
  assert.throws(() => decodeCosmosTx(raw), /only SIGN_MODE_DIRECT/);
});
