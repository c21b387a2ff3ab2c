/**
 * ABCI Query: the Cosmos gRPC query paths, answered by the same code as the consensus RPC's
 * abci_query (src/node/network-settings.ts wires it so), at the latest or a given height; any other
 * path, `/store/…` included, is an unknown request.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { QueryAccountRequest, QueryAccountResponse } from 'cosmjs-types/cosmos/auth/v1beta1/query';
import { BaseAccount } from 'cosmjs-types/cosmos/auth/v1beta1/auth';
import { QueryBalanceRequest, QueryBalanceResponse } from 'cosmjs-types/cosmos/bank/v1beta1/query';
import { accountFromPrivateKey, toAccAddress } from '../../../src/crypto/accounts.ts';
import { DEV_ACCOUNTS, makeHome } from '../../helpers/node.ts';
import { cosmosSend, decidedBlock, GENESIS_SECONDS, openAbciApp } from './helpers.ts';

const BALANCE = '/cosmos.bank.v1beta1.Query/Balance';

test('Query answers a bank balance at the latest and at an earlier height, an account, and a non-zero code for an unknown path', async (t) => {
  const h = await openAbciApp(makeHome(t));
  t.after(() => h.close());
  const alice = DEV_ACCOUNTS[0];
  const aliceBech = toAccAddress(alice.cosmosAddress);
  // a key the genesis does not know
  const bob = toAccAddress(accountFromPrivateKey(Uint8Array.from(Buffer.alloc(32, 0x43))).cosmosAddress);
  const send = (uchain: bigint, sequence: bigint) =>
    cosmosSend(alice.privateKey, bob, uchain, { sequence, accountNumber: 0n, feeUchain: 200n });
  for (const [height, tx] of [
    [1, await send(5_000_000n, 0n)],
    [2, await send(1_000_000n, 1n)],
  ] as const) {
    const [r] = (await decidedBlock(h, height, GENESIS_SECONDS + 5 * height, [tx])).txResults;
    assert.equal(r.code, 0, r.log);
  }

  const balance = async (address: string, height: bigint) => {
    const res = await h.call('query', {
      path: BALANCE,
      data: QueryBalanceRequest.encode({ address, denom: 'uchain' }).finish(),
      height,
    });
    assert.equal(res.code, 0, res.log);
    return { height: res.height, amount: QueryBalanceResponse.decode(res.value).balance?.amount };
  };
  assert.deepEqual(await balance(bob, 0n), { height: 2n, amount: '6000000' });
  assert.deepEqual(await balance(bob, 1n), { height: 1n, amount: '5000000' });
  assert.deepEqual(await balance(aliceBech, 0n), {
    height: 2n,
    amount: String(10_000_000_000n - 6_000_000n - 2n * 200n),
  });

  const account = await h.call('query', {
    path: '/cosmos.auth.v1beta1.Query/Account',
    data: QueryAccountRequest.encode({ address: aliceBech }).finish(),
  });
  assert.equal(account.code, 0, account.log);
  const any = QueryAccountResponse.decode(account.value).account!;
  assert.equal(any.typeUrl, '/cosmos.auth.v1beta1.BaseAccount');
  const base = BaseAccount.decode(any.value);
  assert.equal(base.address, aliceBech);
  assert.equal(base.accountNumber, 0n);
  assert.equal(base.sequence, 2n);

  const failure = (code: number, log: string, height: bigint) => ({
    code,
    log,
    info: '',
    index: 0n,
    key: new Uint8Array(0),
    value: new Uint8Array(0),
    proofOps: undefined,
    height,
    codespace: 'sdk',
  });
  const data = QueryBalanceRequest.encode({ address: bob, denom: 'uchain' }).finish();
  assert.deepEqual(
    await h.call('query', { path: '/cosmos.bank.v1beta1.Query/Nope', data }),
    failure(6, 'unknown query path: /cosmos.bank.v1beta1.Query/Nope: unknown request', 2n),
  );
  assert.deepEqual(
    await h.call('query', { path: '/store/bank/key', data }),
    failure(6, 'unknown query path: /store/bank/key: unknown request', 2n),
  );
  assert.deepEqual(
    await h.call('query', { path: BALANCE, data, height: 3n }),
    failure(26, 'cannot query with height in the future; please provide a valid height: invalid height', 3n),
  );
});
