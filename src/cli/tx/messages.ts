/**
 * The staking and slashing messages as Cosmos SDK v0.50 encodes them: LegacyDec fields carry their
 * 18-decimal atomics, `MsgCreateValidator.delegator_address` is left empty (deprecated: the operator
 * self-delegates), the consensus key is an `/cosmos.crypto.ed25519.PubKey`, and `MsgEditValidator`
 * leaves what it does not change as the SDK's "[do-not-modify]" description fields and empty decimals.
 */
import { PubKey as Ed25519PubKey } from 'cosmjs-types/cosmos/crypto/ed25519/keys';
import { MsgUnjail } from 'cosmjs-types/cosmos/slashing/v1beta1/tx';
import type { Description } from 'cosmjs-types/cosmos/staking/v1beta1/staking';
import {
  MsgBeginRedelegate,
  MsgCreateValidator,
  MsgDelegate,
  MsgEditValidator,
  MsgUndelegate,
} from 'cosmjs-types/cosmos/staking/v1beta1/tx';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import { BASE_DENOM } from '../../primitives/identity.ts';

export const TYPE_URLS = {
  createValidator: '/cosmos.staking.v1beta1.MsgCreateValidator',
  editValidator: '/cosmos.staking.v1beta1.MsgEditValidator',
  delegate: '/cosmos.staking.v1beta1.MsgDelegate',
  undelegate: '/cosmos.staking.v1beta1.MsgUndelegate',
  beginRedelegate: '/cosmos.staking.v1beta1.MsgBeginRedelegate',
  unjail: '/cosmos.slashing.v1beta1.MsgUnjail',
} as const;
const ED25519_PUBKEY_TYPE_URL = '/cosmos.crypto.ed25519.PubKey';
/** The SDK's marker for a description field MsgEditValidator leaves as it is. */
export const DO_NOT_MODIFY = '[do-not-modify]';

const coin = (amount: bigint) => ({ denom: BASE_DENOM, amount: amount.toString() });

export interface DescriptionFields {
  moniker?: string;
  identity?: string;
  website?: string;
  securityContact?: string;
  details?: string;
}

function description(d: DescriptionFields, absent: string): Description {
  return {
    moniker: d.moniker ?? absent,
    identity: d.identity ?? absent,
    website: d.website ?? absent,
    securityContact: d.securityContact ?? absent,
    details: d.details ?? absent,
  };
}

export interface CreateValidatorFields {
  description: DescriptionFields & { moniker: string };
  /** LegacyDec atomics, as parseRate returns them */
  commission: { rate: string; maxRate: string; maxChangeRate: string };
  /** integer uchain */
  minSelfDelegation: string;
  valoper: string;
  /** 32-byte Ed25519 consensus key */
  consensusPubKey: Uint8Array;
  /** uchain self-delegated */
  amount: bigint;
}

export function createValidatorMsg(f: CreateValidatorFields): Any {
  return {
    typeUrl: TYPE_URLS.createValidator,
    value: MsgCreateValidator.encode({
      description: description(f.description, ''),
      commission: f.commission,
      minSelfDelegation: f.minSelfDelegation,
      delegatorAddress: '',
      validatorAddress: f.valoper,
      pubkey: {
        typeUrl: ED25519_PUBKEY_TYPE_URL,
        value: Ed25519PubKey.encode({ key: f.consensusPubKey }).finish(),
      },
      value: coin(f.amount),
    }).finish(),
  };
}

export interface EditValidatorFields {
  description: DescriptionFields;
  valoper: string;
  /** LegacyDec atomics; absent: unchanged */
  commissionRate?: string;
  /** integer uchain; absent: unchanged */
  minSelfDelegation?: string;
}

export function editValidatorMsg(f: EditValidatorFields): Any {
  return {
    typeUrl: TYPE_URLS.editValidator,
    value: MsgEditValidator.encode({
      description: description(f.description, DO_NOT_MODIFY),
      validatorAddress: f.valoper,
      commissionRate: f.commissionRate ?? '',
      minSelfDelegation: f.minSelfDelegation ?? '',
    }).finish(),
  };
}

export function delegateMsg(delegator: string, valoper: string, amount: bigint): Any {
  return {
    typeUrl: TYPE_URLS.delegate,
    value: MsgDelegate.encode({
      delegatorAddress: delegator,
      validatorAddress: valoper,
      amount: coin(amount),
    }).finish(),
  };
}

export function undelegateMsg(delegator: string, valoper: string, amount: bigint): Any {
  return {
    typeUrl: TYPE_URLS.undelegate,
    value: MsgUndelegate.encode({
      delegatorAddress: delegator,
      validatorAddress: valoper,
      amount: coin(amount),
    }).finish(),
  };
}

export function redelegateMsg(delegator: string, src: string, dst: string, amount: bigint): Any {
  return {
    typeUrl: TYPE_URLS.beginRedelegate,
    value: MsgBeginRedelegate.encode({
      delegatorAddress: delegator,
      validatorSrcAddress: src,
      validatorDstAddress: dst,
      amount: coin(amount),
    }).finish(),
  };
}

export function unjailMsg(valoper: string): Any {
  return { typeUrl: TYPE_URLS.unjail, value: MsgUnjail.encode({ validatorAddr: valoper }).finish() };
}
