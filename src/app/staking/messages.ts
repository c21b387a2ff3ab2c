/**
 * The staking messages (cosmos.staking.v1beta1 Msg): MsgCreateValidator, MsgEditValidator,
 * MsgDelegate, MsgUndelegate and MsgBeginRedelegate, with the SDK v0.50's checks, errors and events.
 */
import { PubKey as Ed25519PubKey } from 'cosmjs-types/cosmos/crypto/ed25519/keys';
import {
  MsgBeginRedelegate,
  MsgCreateValidator,
  MsgDelegate,
  MsgEditValidator,
  MsgUndelegate,
} from 'cosmjs-types/cosmos/staking/v1beta1/tx';
import type { Coin } from 'cosmjs-types/cosmos/base/v1beta1/coin';
import type { Description } from 'cosmjs-types/cosmos/staking/v1beta1/staking';
import { fromBech32 } from '../../crypto/accounts.ts';
import { equalBytes } from '../../primitives/bytes.ts';
import { BECH32_VALOPER_PREFIX } from '../../primitives/identity.ts';
import { CosmosTxError, SdkCode } from '../cosmos-errors.ts';
import type { DecodedMsg, MsgContext, MsgKind } from '../msg-kinds.ts';
import { accAddress } from '../msg-send.ts';
import { DEC_ONE, formatDec, parseDec } from './dec.ts';
import { invalidRequest, StakingCode, stakingError } from './errors.ts';
import { ev } from '../bank-events.ts';
import { Staking } from './keeper.ts';
import { consAddressOf, valBech, type ValidatorRecord } from './records.ts';
import { formatTime, parseTime, timeNs, ZERO_TIME } from './time.ts';

const ED25519_TYPE_URL = '/cosmos.crypto.ed25519.PubKey';
const DO_NOT_MODIFY = '[do-not-modify]';
const DESCRIPTION_LIMITS: [keyof Description, string, number][] = [
  ['moniker', 'moniker', 70],
  ['identity', 'identity', 3000],
  ['website', 'website', 140],
  ['securityContact', 'security contact', 140],
  ['details', 'details', 280],
];
const DAY_NS = 86_400n * 1_000_000_000n;

function decodeAs<T>(codec: { decode(b: Uint8Array): T }, value: Uint8Array, i: number): T {
  try {
    return codec.decode(value);
  } catch (err) {
    throw new CosmosTxError(SdkCode.TxDecode, `message ${i}: ${(err as Error).message}`);
  }
}

function valAddress(bech: string, field: string): Uint8Array {
  try {
    return fromBech32(bech, BECH32_VALOPER_PREFIX);
  } catch (err) {
    throw new CosmosTxError(
      SdkCode.InvalidAddress,
      `invalid ${field} ${JSON.stringify(bech)}: ${(err as Error).message}: invalid address`,
    );
  }
}

function mustSign(i: number, field: string, bech: string, addr: Uint8Array, signer: Uint8Array): void {
  if (!equalBytes(addr, signer))
    throw new CosmosTxError(
      SdkCode.Unauthorized,
      `message ${i} ${field} ${bech} is not the signer: unauthorized`,
    );
}

/** A positive amount of some denom; the bond denom is checked against params on delivery. */
function positiveCoin(c: Coin | undefined, what: string): { denom: string; amount: bigint } {
  if (
    !c ||
    !/^[a-zA-Z][a-zA-Z0-9/:._-]{2,127}$/.test(c.denom) ||
    !/^\d{1,77}$/.test(c.amount) ||
    BigInt(c.amount) === 0n
  )
    throw invalidRequest(what);
  return { denom: c.denom, amount: BigInt(c.amount) };
}

/** A LegacyDec as protobuf carries it: the integer scaled by 10^18. */
function protoDec(text: string, field: string): bigint {
  if (!/^-?\d{1,80}$/.test(text)) throw invalidRequest(`invalid ${field} ${JSON.stringify(text)}`);
  return BigInt(text);
}

function checkDescription(d: Description): void {
  for (const [k, name, max] of DESCRIPTION_LIMITS)
    if (d[k].length > max) throw invalidRequest(`invalid ${name} length; got: ${d[k].length}, max: ${max}`);
}

const emptyDescription = (d: Description | undefined) => !d || DESCRIPTION_LIMITS.every(([k]) => d[k] === '');

/** CommissionRates.Validate */
function checkCommission(rate: bigint, maxRate: bigint, maxChangeRate: bigint): void {
  if (maxRate < 0n) throw stakingError(StakingCode.CommissionNegative);
  if (maxRate > DEC_ONE) throw stakingError(StakingCode.CommissionHuge);
  if (rate < 0n) throw stakingError(StakingCode.CommissionNegative);
  if (rate > maxRate) throw stakingError(StakingCode.CommissionGTMaxRate);
  if (maxChangeRate < 0n) throw stakingError(StakingCode.CommissionChangeRateNegative);
  if (maxChangeRate > maxRate) throw stakingError(StakingCode.CommissionChangeRateGTMaxRate);
}

function checkBondDenom(k: Staking, denom: string): void {
  if (denom !== k.params.bondDenom)
    throw invalidRequest(`invalid coin denomination: got ${denom}, expected ${k.params.bondDenom}`);
}

const keeper = (ctx: MsgContext) =>
  new Staking(ctx.state, { height: ctx.block.height, timeNs: timeNs(ctx.block.time) });
const coin = (amount: bigint, denom: string) => `${amount}${denom}`;

// --- MsgCreateValidator ---

export interface CreateValidatorMsg extends DecodedMsg {
  msg: MsgCreateValidator;
  operator: Uint8Array;
  pubKey: Uint8Array;
  rate: bigint;
  maxRate: bigint;
  maxChangeRate: bigint;
  value: { denom: string; amount: bigint };
}

const CREATE_VALIDATOR: MsgKind<CreateValidatorMsg> = {
  typeUrl: '/cosmos.staking.v1beta1.MsgCreateValidator',
  module: 'staking',
  decode(value, signer, i) {
    const m = decodeAs(MsgCreateValidator, value, i);
    const operator = valAddress(m.validatorAddress, 'validator address');
    mustSign(i, 'validator', m.validatorAddress, operator, signer);
    if (!m.pubkey) throw stakingError(StakingCode.EmptyValidatorPubKey);
    if (m.pubkey.typeUrl !== ED25519_TYPE_URL)
      throw stakingError(
        StakingCode.ValidatorPubKeyTypeNotSupported,
        `got: ${m.pubkey.typeUrl}, expected: [ed25519]`,
      );
    let pubKey: Uint8Array;
    try {
      pubKey = Ed25519PubKey.decode(m.pubkey.value).key;
    } catch (err) {
      throw new CosmosTxError(
        SdkCode.InvalidPubKey,
        `invalid ed25519 key: ${(err as Error).message}: invalid pubkey`,
      );
    }
    if (pubKey.length !== 32)
      throw new CosmosTxError(
        SdkCode.InvalidPubKey,
        `ed25519 key must be 32 bytes, got ${pubKey.length}: invalid pubkey`,
      );
    const val = positiveCoin(m.value, 'invalid delegation amount');
    if (emptyDescription(m.description)) throw invalidRequest('empty description');
    checkDescription(m.description);
    const c = m.commission;
    if (!c || (c.rate === '' && c.maxRate === '' && c.maxChangeRate === ''))
      throw invalidRequest('empty commission');
    const rate = protoDec(c.rate || '0', 'commission rate');
    const maxRate = protoDec(c.maxRate || '0', 'commission max rate');
    const maxChangeRate = protoDec(c.maxChangeRate || '0', 'commission max change rate');
    checkCommission(rate, maxRate, maxChangeRate);
    if (!/^\d{1,77}$/.test(m.minSelfDelegation) || BigInt(m.minSelfDelegation) === 0n)
      throw invalidRequest('minimum self delegation must be a positive integer');
    if (val.amount < BigInt(m.minSelfDelegation)) throw stakingError(StakingCode.SelfDelegationBelowMinimum);
    return { typeUrl: this.typeUrl, msg: m, operator, pubKey, rate, maxRate, maxChangeRate, value: val };
  },
  deliver(d, ctx) {
    const k = keeper(ctx);
    if (d.rate < k.params.minCommissionRate)
      throw stakingError(
        StakingCode.CommissionLTMinRate,
        `cannot set validator commission to less than minimum rate of ${formatDec(k.params.minCommissionRate)}`,
      );
    if (k.validator(d.operator)) throw stakingError(StakingCode.ValidatorOwnerExists);
    if (k.validatorByConsAddr(consAddressOf(d.pubKey))) throw stakingError(StakingCode.ValidatorPubKeyExists);
    checkBondDenom(k, d.value.denom);
    const m = d.msg;
    const v: ValidatorRecord = {
      operator_address: m.validatorAddress,
      consensus_pubkey: { '@type': ED25519_TYPE_URL, key: Buffer.from(d.pubKey).toString('base64') },
      jailed: false,
      status: 'BOND_STATUS_UNBONDED',
      tokens: '0',
      delegator_shares: formatDec(0n),
      description: {
        moniker: m.description.moniker,
        identity: m.description.identity,
        website: m.description.website,
        security_contact: m.description.securityContact,
        details: m.description.details,
      },
      unbonding_height: '0',
      unbonding_time: ZERO_TIME,
      commission: {
        commission_rates: {
          rate: formatDec(d.rate),
          max_rate: formatDec(d.maxRate),
          max_change_rate: formatDec(d.maxChangeRate),
        },
        update_time: formatTime(k.block.timeNs),
      },
      min_self_delegation: BigInt(m.minSelfDelegation).toString(),
    };
    k.setValidator(v);
    k.delegate(d.operator, d.value.amount, 'account', v);
    return [
      ...k.events,
      ev('create_validator', { validator: m.validatorAddress, amount: coin(d.value.amount, d.value.denom) }),
    ];
  },
};

// --- MsgEditValidator ---

export interface EditValidatorMsg extends DecodedMsg {
  msg: MsgEditValidator;
  operator: Uint8Array;
  rate?: bigint;
  minSelfDelegation?: bigint;
}

const EDIT_VALIDATOR: MsgKind<EditValidatorMsg> = {
  typeUrl: '/cosmos.staking.v1beta1.MsgEditValidator',
  module: 'staking',
  decode(value, signer, i) {
    const m = decodeAs(MsgEditValidator, value, i);
    const operator = valAddress(m.validatorAddress, 'validator address');
    mustSign(i, 'validator', m.validatorAddress, operator, signer);
    if (emptyDescription(m.description)) throw invalidRequest('empty description');
    let minSelfDelegation: bigint | undefined;
    if (m.minSelfDelegation !== '') {
      if (!/^\d{1,77}$/.test(m.minSelfDelegation) || BigInt(m.minSelfDelegation) === 0n)
        throw invalidRequest('minimum self delegation must be a positive integer');
      minSelfDelegation = BigInt(m.minSelfDelegation);
    }
    let rate: bigint | undefined;
    if (m.commissionRate !== '') {
      rate = protoDec(m.commissionRate, 'commission rate');
      if (rate < 0n || rate > DEC_ONE)
        throw invalidRequest('commission rate must be between 0 and 1 (inclusive)');
    }
    return { typeUrl: this.typeUrl, msg: m, operator, rate, minSelfDelegation };
  },
  deliver(d, ctx) {
    const k = keeper(ctx);
    let v = k.mustValidator(d.operator);
    const keep = (next: string, old: string) => (next === DO_NOT_MODIFY ? old : next);
    const desc = d.msg.description;
    const description = {
      moniker: keep(desc.moniker, v.description.moniker),
      identity: keep(desc.identity, v.description.identity),
      website: keep(desc.website, v.description.website),
      security_contact: keep(desc.securityContact, v.description.security_contact),
      details: keep(desc.details, v.description.details),
    };
    checkDescription({ ...description, securityContact: description.security_contact });
    v = { ...v, description };
    if (d.rate !== undefined) {
      const rates = v.commission.commission_rates;
      const old = parseDec(rates.rate);
      if (k.block.timeNs - parseTime(v.commission.update_time) < DAY_NS)
        throw stakingError(StakingCode.CommissionUpdateTime);
      if (d.rate > parseDec(rates.max_rate)) throw stakingError(StakingCode.CommissionGTMaxRate);
      const change = d.rate > old ? d.rate - old : old - d.rate;
      if (change > parseDec(rates.max_change_rate)) throw stakingError(StakingCode.CommissionGTMaxChangeRate);
      if (d.rate < k.params.minCommissionRate)
        throw stakingError(
          StakingCode.CommissionLTMinRate,
          `cannot set validator commission to less than minimum rate of ${formatDec(k.params.minCommissionRate)}`,
        );
      v = {
        ...v,
        commission: {
          commission_rates: { ...rates, rate: formatDec(d.rate) },
          update_time: formatTime(k.block.timeNs),
        },
      };
    }
    if (d.minSelfDelegation !== undefined) {
      if (d.minSelfDelegation <= BigInt(v.min_self_delegation))
        throw stakingError(StakingCode.MinSelfDelegationDecreased);
      if (d.minSelfDelegation > BigInt(v.tokens)) throw stakingError(StakingCode.SelfDelegationBelowMinimum);
      v = { ...v, min_self_delegation: d.minSelfDelegation.toString() };
    }
    k.setValidator(v);
    return [
      ev('edit_validator', {
        commission_rate: v.commission.commission_rates.rate,
        min_self_delegation: v.min_self_delegation,
      }),
    ];
  },
};

// --- MsgDelegate, MsgUndelegate, MsgBeginRedelegate ---

export interface DelegateMsg extends DecodedMsg {
  delegator: Uint8Array;
  validator: Uint8Array;
  delegatorBech: string;
  validatorBech: string;
  amount: { denom: string; amount: bigint };
}

export interface RedelegateMsg extends DecodedMsg {
  delegator: Uint8Array;
  src: Uint8Array;
  dst: Uint8Array;
  amount: { denom: string; amount: bigint };
}

function decodeDelegation(
  typeUrl: string,
  m: MsgDelegate | MsgUndelegate,
  signer: Uint8Array,
  i: number,
  amountProblem: string,
): DelegateMsg {
  const delegator = accAddress(m.delegatorAddress, 'delegator address');
  const validator = valAddress(m.validatorAddress, 'validator address');
  mustSign(i, 'delegator', m.delegatorAddress, delegator, signer);
  return {
    typeUrl,
    delegator,
    validator,
    delegatorBech: m.delegatorAddress,
    validatorBech: m.validatorAddress,
    amount: positiveCoin(m.amount, amountProblem),
  };
}

const DELEGATE: MsgKind<DelegateMsg> = {
  typeUrl: '/cosmos.staking.v1beta1.MsgDelegate',
  module: 'staking',
  decode(value, signer, i) {
    return decodeDelegation(
      this.typeUrl,
      decodeAs(MsgDelegate, value, i),
      signer,
      i,
      'invalid delegation amount',
    );
  },
  deliver(d, ctx) {
    const k = keeper(ctx);
    const v = k.mustValidator(d.validator);
    checkBondDenom(k, d.amount.denom);
    const shares = k.delegate(d.delegator, d.amount.amount, 'account', v);
    return [
      ...k.events,
      ev('delegate', {
        validator: d.validatorBech,
        delegator: d.delegatorBech,
        amount: coin(d.amount.amount, d.amount.denom),
        new_shares: formatDec(shares),
      }),
    ];
  },
};

const UNDELEGATE: MsgKind<DelegateMsg> = {
  typeUrl: '/cosmos.staking.v1beta1.MsgUndelegate',
  module: 'staking',
  decode(value, signer, i) {
    return decodeDelegation(
      this.typeUrl,
      decodeAs(MsgUndelegate, value, i),
      signer,
      i,
      'invalid shares amount',
    );
  },
  deliver(d, ctx) {
    const k = keeper(ctx);
    const shares = k.unbondShares(d.delegator, d.validator, d.amount.amount);
    checkBondDenom(k, d.amount.denom);
    const { amount, completionNs } = k.undelegate(d.delegator, d.validator, shares);
    return [
      ...k.events,
      ev('unbond', {
        validator: d.validatorBech,
        delegator: d.delegatorBech,
        amount: coin(amount, d.amount.denom),
        completion_time: formatTime(completionNs - (completionNs % 1_000_000_000n)),
      }),
    ];
  },
};

const BEGIN_REDELEGATE: MsgKind<RedelegateMsg> = {
  typeUrl: '/cosmos.staking.v1beta1.MsgBeginRedelegate',
  module: 'staking',
  decode(value, signer, i) {
    const m = decodeAs(MsgBeginRedelegate, value, i);
    const delegator = accAddress(m.delegatorAddress, 'delegator address');
    const src = valAddress(m.validatorSrcAddress, 'source validator address');
    const dst = valAddress(m.validatorDstAddress, 'destination validator address');
    mustSign(i, 'delegator', m.delegatorAddress, delegator, signer);
    return {
      typeUrl: this.typeUrl,
      delegator,
      src,
      dst,
      amount: positiveCoin(m.amount, 'invalid shares amount'),
    };
  },
  deliver(d, ctx) {
    const k = keeper(ctx);
    const shares = k.unbondShares(d.delegator, d.src, d.amount.amount);
    checkBondDenom(k, d.amount.denom);
    const completionNs = k.beginRedelegation(d.delegator, d.src, d.dst, shares);
    return [
      ...k.events,
      ev('redelegate', {
        source_validator: valBech(d.src),
        destination_validator: valBech(d.dst),
        amount: coin(d.amount.amount, d.amount.denom),
        completion_time: formatTime(completionNs - (completionNs % 1_000_000_000n)),
      }),
    ];
  },
};

export const STAKING_MSGS = [
  CREATE_VALIDATOR,
  EDIT_VALIDATOR,
  DELEGATE,
  UNDELEGATE,
  BEGIN_REDELEGATE,
] as const;
