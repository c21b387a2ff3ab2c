/** The staking query responses and messages as the gateway prints them (jsonpb, snake case). */
import type {
  DelegationResponse,
  Params,
  Pool,
  RedelegationEntry,
  RedelegationResponse,
  UnbondingDelegation,
} from 'cosmjs-types/cosmos/staking/v1beta1/staking';
import {
  MsgBeginRedelegate,
  MsgCreateValidator,
  MsgDelegate,
  MsgEditValidator,
  MsgUndelegate,
} from 'cosmjs-types/cosmos/staking/v1beta1/tx';
import type { Description } from 'cosmjs-types/cosmos/staking/v1beta1/staking';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import { coinJson, decJson, type Json, timestampJson } from './json-values.ts';

export function delegationResponseJson(d: DelegationResponse | undefined): Json {
  if (!d) return null;
  return {
    delegation: {
      delegator_address: d.delegation.delegatorAddress,
      validator_address: d.delegation.validatorAddress,
      shares: decJson(d.delegation.shares),
    },
    balance: coinJson(d.balance),
  };
}

export function unbondingDelegationJson(u: UnbondingDelegation | undefined): Json {
  if (!u) return null;
  return {
    delegator_address: u.delegatorAddress,
    validator_address: u.validatorAddress,
    entries: u.entries.map((e) => ({
      creation_height: String(e.creationHeight),
      completion_time: timestampJson(e.completionTime),
      initial_balance: e.initialBalance,
      balance: e.balance,
      unbonding_id: String(e.unbondingId),
      unbonding_on_hold_ref_count: String(e.unbondingOnHoldRefCount),
    })),
  };
}

const redelegationEntryJson = (e: RedelegationEntry): Json => ({
  creation_height: String(e.creationHeight),
  completion_time: timestampJson(e.completionTime),
  initial_balance: e.initialBalance,
  shares_dst: decJson(e.sharesDst),
  unbonding_id: String(e.unbondingId),
  unbonding_on_hold_ref_count: String(e.unbondingOnHoldRefCount),
});

export function redelegationResponseJson(r: RedelegationResponse): Json {
  return {
    redelegation: {
      delegator_address: r.redelegation.delegatorAddress,
      validator_src_address: r.redelegation.validatorSrcAddress,
      validator_dst_address: r.redelegation.validatorDstAddress,
      entries: r.redelegation.entries.map(redelegationEntryJson),
    },
    entries: r.entries.map((e) => ({
      redelegation_entry: redelegationEntryJson(e.redelegationEntry),
      balance: e.balance,
    })),
  };
}

export const poolJson = (p: Pool): Json => ({
  not_bonded_tokens: p.notBondedTokens,
  bonded_tokens: p.bondedTokens,
});

export const stakingParamsJson = (p: Params): Json => ({
  unbonding_time: `${p.unbondingTime.seconds}${p.unbondingTime.nanos ? `.${String(p.unbondingTime.nanos).padStart(9, '0')}` : ''}s`,
  max_validators: p.maxValidators,
  max_entries: p.maxEntries,
  historical_entries: p.historicalEntries,
  bond_denom: p.bondDenom,
  min_commission_rate: decJson(p.minCommissionRate),
});

const descriptionJson = (d: Description): Json => ({
  moniker: d.moniker,
  identity: d.identity,
  website: d.website,
  security_contact: d.securityContact,
  details: d.details,
});

/** A LegacyDec field left unset ("" in protobuf) is null in JSON. */
const optionalDec = (scaled: string): Json => (scaled === '' ? null : decJson(scaled));

/** The staking messages inside a tx (GetTx, txs); `any` renders the consensus key. */
export function stakingMsgDecoders(
  anyJson: (a: Any | undefined) => Json,
): Record<string, (b: Uint8Array) => Record<string, Json>> {
  return {
    '/cosmos.staking.v1beta1.MsgCreateValidator': (b) => {
      const m = MsgCreateValidator.decode(b);
      return {
        description: descriptionJson(m.description),
        commission: {
          rate: decJson(m.commission.rate || '0'),
          max_rate: decJson(m.commission.maxRate || '0'),
          max_change_rate: decJson(m.commission.maxChangeRate || '0'),
        },
        min_self_delegation: m.minSelfDelegation,
        delegator_address: m.delegatorAddress,
        validator_address: m.validatorAddress,
        pubkey: anyJson(m.pubkey),
        value: coinJson(m.value),
      };
    },
    '/cosmos.staking.v1beta1.MsgEditValidator': (b) => {
      const m = MsgEditValidator.decode(b);
      return {
        description: descriptionJson(m.description),
        validator_address: m.validatorAddress,
        commission_rate: optionalDec(m.commissionRate),
        min_self_delegation: m.minSelfDelegation === '' ? null : m.minSelfDelegation,
      };
    },
    '/cosmos.staking.v1beta1.MsgDelegate': (b) => {
      const m = MsgDelegate.decode(b);
      return {
        delegator_address: m.delegatorAddress,
        validator_address: m.validatorAddress,
        amount: coinJson(m.amount),
      };
    },
    '/cosmos.staking.v1beta1.MsgUndelegate': (b) => {
      const m = MsgUndelegate.decode(b);
      return {
        delegator_address: m.delegatorAddress,
        validator_address: m.validatorAddress,
        amount: coinJson(m.amount),
      };
    },
    '/cosmos.staking.v1beta1.MsgBeginRedelegate': (b) => {
      const m = MsgBeginRedelegate.decode(b);
      return {
        delegator_address: m.delegatorAddress,
        validator_src_address: m.validatorSrcAddress,
        validator_dst_address: m.validatorDstAddress,
        amount: coinJson(m.amount),
      };
    },
  };
}
