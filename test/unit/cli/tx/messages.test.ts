/**
 * The staking and slashing messages are byte for byte what CosmJS sends for the same inputs: its
 * amino converters turn the SDK's JSON form (decimals as "0.100000000000000000") into protobuf
 * fields, and its registry encodes them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Registry } from '@cosmjs/proto-signing';
import { AminoTypes, createStakingAminoConverters, defaultRegistryTypes } from '@cosmjs/stargate';
import { MsgUnjail } from 'cosmjs-types/cosmos/slashing/v1beta1/tx';
import { MsgCreateValidator, MsgEditValidator } from 'cosmjs-types/cosmos/staking/v1beta1/tx';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import { parseRate } from '../../../../src/cli/tx/amounts.ts';
import {
  createValidatorMsg,
  DO_NOT_MODIFY,
  delegateMsg,
  editValidatorMsg,
  redelegateMsg,
  TYPE_URLS,
  undelegateMsg,
  unjailMsg,
} from '../../../../src/cli/tx/messages.ts';

const registry = new Registry([...defaultRegistryTypes, [TYPE_URLS.unjail, MsgUnjail]]);
const amino = new AminoTypes(createStakingAminoConverters());
const DELEGATOR = 'chain15428vq2uzwhm3taey9sr9x5vm6tk78ewvkp59v';
const VALOPER = 'chainvaloper15428vq2uzwhm3taey9sr9x5vm6tk78ewk7qnmk';
const OTHER_VALOPER = 'chainvaloper1cjzphr67dug28rw9ueewrqllmxlqe5f0lgc9l2';
const CONSENSUS_KEY = Uint8Array.from({ length: 32 }, (_, i) => i + 1);

/** What CosmJS encodes for the SDK's amino JSON of a message. */
function cosmjsBytes(type: string, value: Record<string, unknown>): Uint8Array {
  const encodeObject = amino.fromAmino({ type, value });
  return registry.encode(encodeObject);
}

function assertSame(ours: Any, type: string, aminoValue: Record<string, unknown>) {
  const theirs = amino.fromAmino({ type, value: aminoValue });
  assert.equal(ours.typeUrl, theirs.typeUrl);
  assert.deepEqual(Buffer.from(ours.value), Buffer.from(cosmjsBytes(type, aminoValue)));
}

test('MsgCreateValidator: the fields CosmJS encodes, decimals as 18-decimal atomics, no delegator', () => {
  const ours = createValidatorMsg({
    description: { moniker: 'val-1', website: 'https://example.org', details: 'a validator' },
    commission: {
      rate: parseRate('0.10', 'rate'),
      maxRate: parseRate('0.2', 'max'),
      maxChangeRate: parseRate('0.01', 'change'),
    },
    minSelfDelegation: '1',
    valoper: VALOPER,
    consensusPubKey: CONSENSUS_KEY,
    amount: 5_000_000n,
  });
  assertSame(ours, 'cosmos-sdk/MsgCreateValidator', {
    description: {
      moniker: 'val-1',
      identity: '',
      website: 'https://example.org',
      security_contact: '',
      details: 'a validator',
    },
    commission: {
      rate: '0.100000000000000000',
      max_rate: '0.200000000000000000',
      max_change_rate: '0.010000000000000000',
    },
    min_self_delegation: '1',
    delegator_address: '',
    validator_address: VALOPER,
    pubkey: { type: 'tendermint/PubKeyEd25519', value: Buffer.from(CONSENSUS_KEY).toString('base64') },
    value: { denom: 'uchain', amount: '5000000' },
  });
  const decoded = MsgCreateValidator.decode(ours.value);
  assert.equal(decoded.commission.rate, '100000000000000000');
  assert.equal(decoded.delegatorAddress, '');
  assert.equal(decoded.pubkey?.typeUrl, '/cosmos.crypto.ed25519.PubKey');
});

test('MsgEditValidator: unchanged description fields are [do-not-modify], unchanged decimals empty', () => {
  const ours = editValidatorMsg({
    description: { details: 'new details' },
    valoper: VALOPER,
    commissionRate: parseRate('0.15', 'rate'),
  });
  const dnm = DO_NOT_MODIFY;
  assertSame(ours, 'cosmos-sdk/MsgEditValidator', {
    description: { moniker: dnm, identity: dnm, website: dnm, security_contact: dnm, details: 'new details' },
    commission_rate: '0.150000000000000000',
    validator_address: VALOPER,
  });
  const decoded = MsgEditValidator.decode(ours.value);
  assert.equal(decoded.minSelfDelegation, '');
  const minOnly = MsgEditValidator.decode(
    editValidatorMsg({ description: {}, valoper: VALOPER, minSelfDelegation: '10' }).value,
  );
  assert.equal(minOnly.commissionRate, '');
  assert.equal(minOnly.minSelfDelegation, '10');
});

test('MsgDelegate, MsgUndelegate, MsgBeginRedelegate as CosmJS encodes them', () => {
  const amount = { denom: 'uchain', amount: '1234' };
  assertSame(delegateMsg(DELEGATOR, VALOPER, 1234n), 'cosmos-sdk/MsgDelegate', {
    delegator_address: DELEGATOR,
    validator_address: VALOPER,
    amount,
  });
  assertSame(undelegateMsg(DELEGATOR, VALOPER, 1234n), 'cosmos-sdk/MsgUndelegate', {
    delegator_address: DELEGATOR,
    validator_address: VALOPER,
    amount,
  });
  assertSame(redelegateMsg(DELEGATOR, VALOPER, OTHER_VALOPER, 1234n), 'cosmos-sdk/MsgBeginRedelegate', {
    delegator_address: DELEGATOR,
    validator_src_address: VALOPER,
    validator_dst_address: OTHER_VALOPER,
    amount,
  });
});

test('MsgUnjail names the operator address in validator_addr', () => {
  const ours = unjailMsg(VALOPER);
  assert.equal(ours.typeUrl, '/cosmos.slashing.v1beta1.MsgUnjail');
  assert.deepEqual(
    Buffer.from(ours.value),
    Buffer.from(registry.encode({ typeUrl: TYPE_URLS.unjail, value: { validatorAddr: VALOPER } })),
  );
});
