/**
 * Staking end to end against a dev node: CosmJS signs and broadcasts MsgDelegate and MsgUndelegate,
 * then reads validators, delegations, unbonding delegations, the pools and the params back through
 * its StakingExtension over the consensus RPC, and the same state through REST.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DirectSecp256k1Wallet } from '@cosmjs/proto-signing';
import { QueryClient, setupStakingExtension, SigningStargateClient } from '@cosmjs/stargate';
import { Comet38Client } from '@cosmjs/tendermint-rpc';
import { startDev } from '../../helpers/dev-banner.ts';

const FEE = { amount: [{ denom: 'uchain', amount: '5000' }], gas: '500000' };

test('CosmJS delegates and undelegates on a dev node and reads it back through the staking queries', async (t) => {
  const { banner } = await startDev(t);
  const comet = await Comet38Client.connect(banner.consensusRpc);
  t.after(() => comet.disconnect());
  const staking = QueryClient.withExtensions(comet, setupStakingExtension).staking;

  const { validators } = await staking.validators('BOND_STATUS_BONDED');
  assert.equal(validators.length, 1);
  const validator = validators[0].operatorAddress;
  const bondedBefore = BigInt(validators[0].tokens);

  const who = banner.accounts[1];
  const wallet = await DirectSecp256k1Wallet.fromKey(Buffer.from(who.key.replace(/^0x/, ''), 'hex'), 'chain');
  const [{ address }] = await wallet.getAccounts();
  assert.equal(address, who.cosmos);
  const signing = await SigningStargateClient.connectWithSigner(banner.consensusRpc, wallet, {
    broadcastPollIntervalMs: 100,
  });
  t.after(() => signing.disconnect());

  const delegated = await signing.delegateTokens(
    address,
    validator,
    { denom: 'uchain', amount: '5000000' },
    FEE,
  );
  assert.equal(delegated.code, 0, delegated.rawLog);
  assert.ok(delegated.events.some((e) => e.type === 'delegate'));

  const { delegationResponse } = await staking.delegation(address, validator);
  assert.deepEqual(delegationResponse!.balance, { denom: 'uchain', amount: '5000000' });
  assert.equal((await staking.delegatorDelegations(address)).delegationResponses.length, 1);

  const undelegated = await signing.undelegateTokens(
    address,
    validator,
    { denom: 'uchain', amount: '2000000' },
    FEE,
  );
  assert.equal(undelegated.code, 0, undelegated.rawLog);

  const { unbond } = await staking.unbondingDelegation(address, validator);
  assert.equal(unbond.entries.length, 1);
  assert.equal(unbond.entries[0].balance, '2000000');
  assert.equal(unbond.entries[0].creationHeight, BigInt(undelegated.height));
  assert.equal((await staking.delegatorUnbondingDelegations(address)).unbondingResponses.length, 1);
  assert.equal((await staking.validatorUnbondingDelegations(validator)).unbondingResponses.length, 1);
  assert.equal((await staking.validatorDelegations(validator)).delegationResponses.length, 2);

  const { validator: after } = await staking.validator(validator);
  assert.equal(BigInt(after.tokens), bondedBefore + 3_000_000n);
  const { pool } = await staking.pool();
  assert.equal(pool.bondedTokens, String(bondedBefore + 3_000_000n));
  assert.equal(pool.notBondedTokens, '2000000');
  const { params } = await staking.params();
  assert.equal(params.bondDenom, 'uchain');
  assert.equal(params.maxEntries, 7);
  assert.equal(params.unbondingTime.seconds, 1_814_400n);
  assert.equal((await staking.delegatorValidators(address)).validators[0].operatorAddress, validator);

  const rest = async (path: string) => {
    const res = await fetch(`${banner.rest}${path}`);
    assert.equal(res.status, 200, `${path}: ${res.status}`);
    return (await res.json()) as any;
  };
  const d = await rest(`/cosmos/staking/v1beta1/validators/${validator}/delegations/${address}`);
  assert.deepEqual(d.delegation_response.balance, { denom: 'uchain', amount: '3000000' });
  const u = await rest(`/cosmos/staking/v1beta1/delegators/${address}/unbonding_delegations`);
  assert.equal(u.unbonding_responses[0].entries[0].balance, '2000000');
  assert.deepEqual((await rest('/cosmos/staking/v1beta1/pool')).pool, {
    not_bonded_tokens: '2000000',
    bonded_tokens: String(bondedBefore + 3_000_000n),
  });
  assert.equal((await rest('/cosmos/staking/v1beta1/params')).params.unbonding_time, '1814400s');
  const missing = await fetch(
    `${banner.rest}/cosmos/staking/v1beta1/validators/${validator}/delegations/${banner.accounts[2].cosmos}`,
  );
  assert.equal(missing.status, 404);
});
