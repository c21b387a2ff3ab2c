/**
 * One Simulate, three interfaces: gRPC's `cosmos.tx.v1beta1.Service/Simulate`, REST's
 * `POST /cosmos/tx/v1beta1/simulate` and `abci_query` on the same path answer the same gas and events
 * for a tx, and a failing tx with each interface's form of the SDK's error.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SimulateRequest, SimulateResponse } from 'cosmjs-types/cosmos/tx/v1beta1/service';
import { AuthReader } from '../../../src/app/auth.ts';
import { accountFromPrivateKey, toAccAddress } from '../../../src/crypto/accounts.ts';
import { DEV_ACCOUNTS } from '../../helpers/node.ts';
import { cosmosSendTxRaw } from '../consensus-rpc/fixtures.ts';
import { post as rpcPost } from '../consensus-rpc/helpers.ts';
import { startGrpcNode } from '../grpc/helpers.ts';

test('Simulate answers alike over gRPC, REST and abci_query', async (t) => {
  const { node, call } = await startGrpcNode(t);
  const rest = `http://127.0.0.1:${node.modules.rest!.address.port}`;
  const rpc = `http://127.0.0.1:${node.modules.consensusRpc!.address.port}`;
  const to = toAccAddress(accountFromPrivateKey(new Uint8Array(32).fill(0x61)).cosmosAddress);
  const acc = new AuthReader(node.modules.chain.state).account(DEV_ACCOUNTS[0].cosmosAddress)!;
  const simulateAll = async (raw: Uint8Array) => {
    const restAnswer = await fetch(`${rest}/cosmos/tx/v1beta1/simulate`, {
      method: 'POST',
      body: JSON.stringify({ tx_bytes: Buffer.from(raw).toString('base64') }),
    });
    const data = Buffer.from(SimulateRequest.encode({ txBytes: raw }).finish()).toString('hex');
    const abci = (await rpcPost(rpc, 'abci_query', { path: '/cosmos.tx.v1beta1.Service/Simulate', data }))
      .body.result.response;
    return { rest: { status: restAnswer.status, body: (await restAnswer.json()) as any }, abci };
  };

  const raw = await cosmosSendTxRaw(0, to, '5', acc.accountNumber, acc.sequence);
  const { response: grpc } = await call('cosmos.tx.v1beta1.Service', 'Simulate', { txBytes: raw });
  const { rest: r, abci } = await simulateAll(raw);
  assert.equal(r.status, 200);
  assert.equal(r.body.gas_info.gas_used, String(grpc.gasInfo.gasUsed));
  assert.equal(r.body.gas_info.gas_wanted, '200000');
  assert.equal(abci.code, 0, abci.log);
  const fromAbci = SimulateResponse.decode(Buffer.from(abci.value, 'base64'));
  assert.equal(fromAbci.gasInfo!.gasUsed, grpc.gasInfo.gasUsed);
  const types = (events: { type: string }[]) => events.map((e) => e.type);
  assert.deepEqual(types(r.body.result.events), types(grpc.result.events));
  assert.deepEqual(types(fromAbci.result!.events), types(grpc.result.events));
  assert.deepEqual(types(grpc.result.events), [
    ...['coin_spent', 'coin_received', 'transfer', 'message', 'tx', 'tx', 'tx'],
    ...['message', 'coin_spent', 'coin_received', 'transfer', 'message'],
  ]);

  // a stale sequence: the SDK's message with the gas, in each interface's error form
  const stale = await cosmosSendTxRaw(0, to, '5', acc.accountNumber, acc.sequence + 7n);
  const failed = await simulateAll(stale);
  assert.equal(failed.rest.status, 500);
  assert.equal(failed.rest.body.code, 2);
  assert.match(failed.rest.body.message, /sequence.* With gas wanted: '200000' and gas used: '0' $/);
  assert.equal(failed.abci.code, 6);
  assert.equal(failed.abci.codespace, 'sdk');
  assert.match(
    failed.abci.log,
    /^rpc error: code = Unknown desc = .*sequence.* With gas wanted: '200000' and gas used: '0' : unknown request$/,
  );
  const empty = await rpcPost(rpc, 'abci_query', { path: '/cosmos.tx.v1beta1.Service/Simulate', data: '' });
  assert.equal(empty.body.result.response.code, 18);
});
