/**
 * bank, auth and staking query services over gRPC against a running node: exact answers from
 * genesis, the `x-cosmos-block-height` metadata in both directions, NOT_FOUND and INVALID_ARGUMENT.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { status } from '@grpc/grpc-js';
import { BaseAccount } from 'cosmjs-types/cosmos/auth/v1beta1/auth';
import { BondStatus } from 'cosmjs-types/cosmos/staking/v1beta1/staking';
import { AuthReader } from '../../../src/app/auth.ts';
import { toAccAddress, toValoperAddress } from '../../../src/crypto/accounts.ts';
import { DEV_ACCOUNTS, until } from '../../helpers/node.ts';
import { startGrpcNode } from './helpers.ts';

const BANK = 'cosmos.bank.v1beta1.Query';
const AUTH = 'cosmos.auth.v1beta1.Query';
const STAKING = 'cosmos.staking.v1beta1.Query';
const HEIGHT = 'x-cosmos-block-height';
const GENESIS_BALANCE = '10000000000';

test('gRPC bank, auth and staking queries', async (t) => {
  const { node, call, logs, address } = await startGrpcNode(t);
  await until(() => node.modules.chain.latestHeight >= 2);
  const bob = toAccAddress(DEV_ACCOUNTS[3].cosmosAddress);

  await t.test('the node logs its bound address', () => {
    const line = logs.find((l) => l.msg === 'gRPC listening');
    assert.deepEqual(line?.fields, { module: 'rpc', address });
  });

  await t.test('Balance of a genesis account, with the height it was read at in the headers', async () => {
    const { response, headers } = await call(BANK, 'Balance', { address: bob, denom: 'uchain' });
    assert.deepEqual(response, { balance: { denom: 'uchain', amount: GENESIS_BALANCE } });
    const h = Number(headers.get(HEIGHT)[0]);
    assert.ok(h >= 2 && h <= node.modules.chain.latestHeight, `height header ${h}`);
  });

  await t.test('Balance of a denom nobody holds is zero', async () => {
    const { response } = await call(BANK, 'Balance', { address: bob, denom: 'uatom' });
    assert.deepEqual(response.balance, { denom: 'uatom', amount: '0' });
  });

  await t.test('AllBalances', async () => {
    const { response } = await call(BANK, 'AllBalances', { address: bob });
    assert.deepEqual(response.balances, [{ denom: 'uchain', amount: GENESIS_BALANCE }]);
    assert.equal(response.pagination.total, 1n);
  });

  await t.test('TotalSupply at height 1 is the sum of the genesis balances', async () => {
    const { response, headers } = await call(BANK, 'TotalSupply', {}, { [HEIGHT]: '1' });
    // the accounts' and the bonded pool's (the validator's 10 power)
    const total = 10n * BigInt(GENESIS_BALANCE) + 10_000_000n;
    assert.deepEqual(response.supply, [{ denom: 'uchain', amount: String(total) }]);
    assert.deepEqual(headers.get(HEIGHT), ['1']);
  });

  await t.test('Account: the stored BaseAccount', async () => {
    const stored = new AuthReader(node.modules.chain.state).account(DEV_ACCOUNTS[3].cosmosAddress)!;
    const { response } = await call(AUTH, 'Account', { address: bob });
    assert.equal(response.account.typeUrl, '/cosmos.auth.v1beta1.BaseAccount');
    const acc = BaseAccount.decode(response.account.value);
    assert.equal(acc.address, bob);
    assert.equal(acc.accountNumber, BigInt(stored.accountNumber));
    assert.equal(acc.sequence, BigInt(stored.sequence));
  });

  await t.test('Account of an address with no account: NOT_FOUND', async () => {
    const nobody = toAccAddress(new Uint8Array(20).fill(7));
    await assert.rejects(call(AUTH, 'Account', { address: nobody }), {
      code: status.NOT_FOUND,
      details: `account ${nobody} not found`,
    });
  });

  await t.test('a malformed address: INVALID_ARGUMENT naming it', async () => {
    await assert.rejects(call(BANK, 'Balance', { address: 'chain1nope', denom: 'uchain' }), (err: any) => {
      assert.equal(err.code, status.INVALID_ARGUMENT);
      assert.match(err.details, /^invalid address "chain1nope": /);
      return true;
    });
    await assert.rejects(call(BANK, 'AllBalances', { address: '' }), {
      code: status.INVALID_ARGUMENT,
      details: 'empty address string is not allowed',
    });
  });

  await t.test('Validators and Validator: the genesis validator', async () => {
    const operator = toValoperAddress(DEV_ACCOUNTS[0].cosmosAddress);
    const { response } = await call(STAKING, 'Validators', { status: 'BOND_STATUS_BONDED' });
    assert.deepEqual(
      response.validators.map((v: any) => [v.operatorAddress, v.status, v.jailed]),
      [[operator, BondStatus.BOND_STATUS_BONDED, false]],
    );
    assert.equal(response.pagination.total, 1n);
    const one = await call(STAKING, 'Validator', { validatorAddr: operator });
    assert.deepEqual(one.response.validator, response.validators[0]);
    const unbonded = await call(STAKING, 'Validators', { status: 'BOND_STATUS_UNBONDED' });
    assert.deepEqual(unbonded.response.validators, []);
  });

  await t.test(
    'Validator that does not exist: NOT_FOUND; a bad status filter: INVALID_ARGUMENT',
    async () => {
      const absent = toValoperAddress(new Uint8Array(20).fill(9));
      await assert.rejects(call(STAKING, 'Validator', { validatorAddr: absent }), {
        code: status.NOT_FOUND,
        details: `validator ${absent} not found`,
      });
      await assert.rejects(call(STAKING, 'Validators', { status: 'BONDED' }), {
        code: status.INVALID_ARGUMENT,
        details: 'invalid validator status BONDED',
      });
    },
  );

  await t.test('height metadata: future and malformed heights are refused', async () => {
    const future = node.modules.chain.latestHeight + 1000;
    await assert.rejects(
      call(BANK, 'Balance', { address: bob, denom: 'uchain' }, { [HEIGHT]: String(future) }),
      (err: any) => {
        assert.equal(err.code, status.INVALID_ARGUMENT);
        assert.match(
          err.details,
          new RegExp(`^cannot query with height in the future; .*height ${future} is above`),
        );
        return true;
      },
    );
    await assert.rejects(call(BANK, 'Balance', { address: bob, denom: 'uchain' }, { [HEIGHT]: 'abc' }), {
      code: status.INVALID_ARGUMENT,
      details: 'invalid height header "x-cosmos-block-height": "abc" is not a non-negative integer',
    });
  });
});
