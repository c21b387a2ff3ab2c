import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PubKey as Ed25519PubKey } from 'cosmjs-types/cosmos/crypto/ed25519/keys';
import { MsgCreateValidator, MsgDelegate, MsgEditValidator } from 'cosmjs-types/cosmos/staking/v1beta1/tx';
import { anyJson } from '../../../../src/rpc/rest/json.ts';

test('staking messages in a tx print as the SDK JSON: decimals with 18 places, unset fields null, the key inlined', () => {
  const key = new Uint8Array(32).fill(3);
  const create = MsgCreateValidator.fromPartial({
    description: { moniker: 'v' },
    commission: {
      rate: '100000000000000000',
      maxRate: '200000000000000000',
      maxChangeRate: '10000000000000000',
    },
    minSelfDelegation: '1',
    validatorAddress: 'chainvaloper1x',
    pubkey: { typeUrl: '/cosmos.crypto.ed25519.PubKey', value: Ed25519PubKey.encode({ key }).finish() },
    value: { denom: 'uchain', amount: '5' },
  });
  assert.deepEqual(
    anyJson({
      typeUrl: '/cosmos.staking.v1beta1.MsgCreateValidator',
      value: MsgCreateValidator.encode(create).finish(),
    }),
    {
      '@type': '/cosmos.staking.v1beta1.MsgCreateValidator',
      description: { moniker: 'v', identity: '', website: '', security_contact: '', details: '' },
      commission: {
        rate: '0.100000000000000000',
        max_rate: '0.200000000000000000',
        max_change_rate: '0.010000000000000000',
      },
      min_self_delegation: '1',
      delegator_address: '',
      validator_address: 'chainvaloper1x',
      pubkey: { '@type': '/cosmos.crypto.ed25519.PubKey', key: Buffer.from(key).toString('base64') },
      value: { denom: 'uchain', amount: '5' },
    },
  );
  const edit = MsgEditValidator.fromPartial({
    description: { moniker: 'w' },
    validatorAddress: 'chainvaloper1x',
  });
  const editJson = anyJson({
    typeUrl: '/cosmos.staking.v1beta1.MsgEditValidator',
    value: MsgEditValidator.encode(edit).finish(),
  }) as any;
  assert.equal(editJson.commission_rate, null);
  assert.equal(editJson.min_self_delegation, null);
  const del = MsgDelegate.fromPartial({
    delegatorAddress: 'chain1d',
    validatorAddress: 'chainvaloper1x',
    amount: { denom: 'uchain', amount: '7' },
  });
  assert.deepEqual(
    anyJson({ typeUrl: '/cosmos.staking.v1beta1.MsgDelegate', value: MsgDelegate.encode(del).finish() }),
    {
      '@type': '/cosmos.staking.v1beta1.MsgDelegate',
      delegator_address: 'chain1d',
      validator_address: 'chainvaloper1x',
      amount: { denom: 'uchain', amount: '7' },
    },
  );
});
