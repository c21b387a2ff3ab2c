/**
 * cosmos.tx.v1beta1.Service over gRPC: a CosmJS-signed MsgSend broadcast with BroadcastTx, found
 * again with GetTx once included, its effect visible through the bank query at the inclusion height
 * and not before, after a Simulate that reported its gas; refused inputs answer INVALID_ARGUMENT /
 * NOT_FOUND / UNKNOWN or a CheckTx code.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DirectSecp256k1Wallet } from '@cosmjs/proto-signing';
import { SigningStargateClient } from '@cosmjs/stargate';
import { status } from '@grpc/grpc-js';
import { MsgSend } from 'cosmjs-types/cosmos/bank/v1beta1/tx';
import { BroadcastMode } from 'cosmjs-types/cosmos/tx/v1beta1/service';
import { Tx, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { AuthReader } from '../../../src/app/auth.ts';
import { txHash } from '../../../src/codec/index.ts';
import { accountFromPrivateKey, toAccAddress } from '../../../src/crypto/accounts.ts';
import { DEV_ACCOUNTS } from '../../helpers/node.ts';
import { type Caller, startGrpcNode } from './helpers.ts';

const TX = 'cosmos.tx.v1beta1.Service';
const BANK = 'cosmos.bank.v1beta1.Query';
const FEE = { amount: [{ denom: 'uchain', amount: '200' }], gas: '200000' };

async function signSend(
  key: Uint8Array,
  to: string,
  amount: string,
  accountNumber: number,
  sequence: number,
) {
  const wallet = await DirectSecp256k1Wallet.fromKey(key, 'chain');
  const [{ address }] = await wallet.getAccounts();
  const client = await SigningStargateClient.offline(wallet);
  const msg = {
    typeUrl: '/cosmos.bank.v1beta1.MsgSend',
    value: { fromAddress: address, toAddress: to, amount: [{ denom: 'uchain', amount }] },
  };
  const signed = await client.sign(address, [msg], FEE, 'via grpc', {
    accountNumber: BigInt(accountNumber),
    sequence,
    chainId: 'it-1',
  });
  return TxRaw.encode(signed).finish();
}

/** GetTx until the tx is found (NOT_FOUND while it waits in the mempool). */
async function getTxWhenIncluded(call: Caller, hash: string) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      return (await call(TX, 'GetTx', { hash })).response;
    } catch (err: any) {
      if (err.code !== status.NOT_FOUND || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

test('gRPC tx service', async (t) => {
  const { node, call } = await startGrpcNode(t);
  const alice = DEV_ACCOUNTS[0];
  const fresh = toAccAddress(accountFromPrivateKey(Uint8Array.from(Buffer.alloc(32, 0x51))).cosmosAddress);

  await t.test(
    'BroadcastTx (sync) a CosmJS-signed MsgSend, then GetTx and the balance by height',
    async () => {
      const acc = new AuthReader(node.modules.chain.state).account(alice.cosmosAddress)!;
      const raw = await signSend(
        alice.privateKey,
        fresh,
        '1234567',
        Number(acc.accountNumber),
        Number(acc.sequence),
      );
      const hash = Buffer.from(txHash(raw)).toString('hex').toUpperCase();
      const heightBefore = node.modules.chain.latestHeight;

      // Simulate first: it must leave the state alone, so the very same tx is then accepted.
      const { response: sim } = await call(TX, 'Simulate', { txBytes: raw });
      assert.equal(sim.gasInfo.gasWanted, 200000n);
      assert.ok(
        sim.gasInfo.gasUsed > 0n && sim.gasInfo.gasUsed <= 200000n,
        `simulated gas ${sim.gasInfo.gasUsed}`,
      );
      assert.ok(
        sim.result.events.some(
          (e: any) =>
            e.type === 'transfer' &&
            e.attributes.some((a: any) => a.key === 'recipient' && a.value === fresh),
        ),
      );
      assert.equal(
        (await call(BANK, 'Balance', { address: fresh, denom: 'uchain' })).response.balance.amount,
        '0',
        'the simulation changed nothing',
      );

      const { response: b } = await call(TX, 'BroadcastTx', {
        txBytes: raw,
        mode: BroadcastMode.BROADCAST_MODE_SYNC,
      });
      assert.equal(b.txResponse.code, 0, b.txResponse.rawLog);
      assert.equal(b.txResponse.txhash, hash);

      const got = await getTxWhenIncluded(call, hash.toLowerCase());
      const r = got.txResponse;
      assert.equal(r.txhash, hash);
      assert.equal(r.code, 0);
      assert.ok(r.height > BigInt(heightBefore), `included at ${r.height}, after ${heightBefore}`);
      assert.equal(r.gasUsed, sim.gasInfo.gasUsed, 'the block used the gas the simulation reported');
      assert.equal(r.gasWanted, 200000n);
      assert.match(r.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
      assert.ok(
        r.events.some(
          (e: any) =>
            e.type === 'transfer' &&
            e.attributes.some((a: any) => a.key === 'recipient' && a.value === fresh),
        ),
      );
      // The tx as signed: body with the MsgSend and memo, one signature; the Any in tx_response is the same Tx.
      assert.equal(got.tx.body.memo, 'via grpc');
      assert.equal(got.tx.body.messages[0].typeUrl, '/cosmos.bank.v1beta1.MsgSend');
      assert.deepEqual(MsgSend.decode(got.tx.body.messages[0].value).amount, [
        { denom: 'uchain', amount: '1234567' },
      ]);
      assert.deepEqual(got.tx.signatures, TxRaw.decode(raw).signatures);
      assert.deepEqual(Tx.decode(r.tx.value), got.tx);

      const at = async (h: bigint) =>
        (
          await call(
            BANK,
            'Balance',
            { address: fresh, denom: 'uchain' },
            { 'x-cosmos-block-height': String(h) },
          )
        ).response.balance.amount;
      assert.equal(await at(r.height), '1234567');
      assert.equal(await at(r.height - 1n), '0');
    },
  );

  await t.test('BroadcastTx refusals', async () => {
    await assert.rejects(
      call(TX, 'BroadcastTx', { txBytes: new Uint8Array(0), mode: BroadcastMode.BROADCAST_MODE_SYNC }),
      {
        code: status.INVALID_ARGUMENT,
        details: 'invalid empty tx',
      },
    );
    await assert.rejects(
      call(TX, 'BroadcastTx', { txBytes: Uint8Array.of(1), mode: BroadcastMode.BROADCAST_MODE_BLOCK }),
      (err: any) => {
        assert.equal(err.code, status.INVALID_ARGUMENT);
        assert.match(err.details, /^BROADCAST_MODE_BLOCK is not supported/);
        return true;
      },
    );
    await assert.rejects(
      call(TX, 'BroadcastTx', { txBytes: Uint8Array.of(1), mode: BroadcastMode.BROADCAST_MODE_UNSPECIFIED }),
      {
        code: status.INVALID_ARGUMENT,
        details: 'unsupported broadcast mode 0; supported: BROADCAST_MODE_SYNC (2), BROADCAST_MODE_ASYNC (3)',
      },
    );
    // Malformed bytes reach CheckTx, which refuses them with an SDK code, as a Cosmos node answers.
    const { response } = await call(TX, 'BroadcastTx', {
      txBytes: Uint8Array.of(0xff, 0x01),
      mode: BroadcastMode.BROADCAST_MODE_SYNC,
    });
    assert.notEqual(response.txResponse.code, 0);
    assert.equal(response.txResponse.codespace, 'sdk');
    assert.ok(response.txResponse.rawLog.length > 0);
  });

  await t.test('GetTx of an unknown hash: NOT_FOUND; of a malformed hash: INVALID_ARGUMENT', async () => {
    const unknown = 'AB'.repeat(32);
    await assert.rejects(call(TX, 'GetTx', { hash: unknown }), {
      code: status.NOT_FOUND,
      details: `tx not found: ${unknown}`,
    });
    await assert.rejects(call(TX, 'GetTx', { hash: 'xyz' }), {
      code: status.INVALID_ARGUMENT,
      details: 'tx hash "xyz" is not 32 bytes of hex',
    });
  });

  await t.test(
    'Simulate refusals: a failing tx answers UNKNOWN with the gas, as the SDK; empty bytes INVALID_ARGUMENT',
    async () => {
      const acc = new AuthReader(node.modules.chain.state).account(alice.cosmosAddress)!;
      const stale = await signSend(
        alice.privateKey,
        fresh,
        '1',
        Number(acc.accountNumber),
        Number(acc.sequence) - 1,
      );
      await assert.rejects(call(TX, 'Simulate', { txBytes: stale }), (err: any) => {
        assert.equal(err.code, status.UNKNOWN);
        assert.match(err.details, /sequence.* With gas wanted: '200000' and gas used: '0' $/);
        return true;
      });
      await assert.rejects(call(TX, 'Simulate', { txBytes: new Uint8Array(0) }), {
        code: status.INVALID_ARGUMENT,
        details: 'empty txBytes is not allowed: send the signed TxRaw in tx_bytes',
      });
    },
  );
});
