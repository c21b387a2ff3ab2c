/**
 * Staking's state transitions over the block's state, as the SDK's x/staking keeper makes them:
 * delegating, unbonding, undelegating and redelegating move shares and tokens (between a delegator
 * and the pools, and between the pools); slashing burns them. Events land in `events`.
 */
import type { TxEvent } from '../../storage/blocks/types.ts';
import type { StateWriter } from '../state-access.ts';
import { decMul, decTruncateInt, formatDec, parseDec } from './dec.ts';
import { stakingError, StakingCode } from './errors.ts';
import { readParams, type StakingParams } from './params.ts';
import { type Pool, Pools } from './pools.ts';
import {
  accBech,
  operatorBytes,
  type RedelegationRecord,
  StakingStore,
  type UnbondingDelegationRecord,
  valBech,
  type ValidatorRecord,
} from './records.ts';
import {
  addTokensFromDel,
  invalidExRate,
  removeDelShares,
  sharesFromTokens,
  sharesFromTokensTruncated,
  sharesOf,
  tokensFromShares,
  tokensOf,
} from './shares.ts';
import { formatTime, parseTime as parseTimeNs } from './time.ts';
import { equalBytes } from '../../primitives/bytes.ts';

export interface StakingBlock {
  height: number;
  timeNs: bigint;
}

type BondStatus = ValidatorRecord['status'];

export const poolOf = (status: BondStatus): Pool =>
  status === 'BOND_STATUS_BONDED' ? 'bonded' : 'not_bonded';

export class Staking extends StakingStore {
  readonly events: TxEvent[] = [];
  readonly pools: Pools;
  readonly block: StakingBlock;
  private paramsCache: StakingParams | undefined;

  constructor(state: StateWriter, block: StakingBlock) {
    super(state);
    this.block = block;
    this.pools = new Pools(state, this.events);
  }

  get params(): StakingParams {
    return (this.paramsCache ??= readParams(this.state));
  }

  mustValidator(operator: Uint8Array, code: number = StakingCode.NoValidatorFound): ValidatorRecord {
    const v = this.validator(operator);
    if (!v) throw stakingError(code);
    return v;
  }

  /**
   * Keeper.Delegate: `amount` tokens for new shares of `validator`, from the delegator's account
   * (`from` 'account') or already in the pool of a validator with status `from` (a redelegation).
   */
  delegate(
    delegator: Uint8Array,
    amount: bigint,
    from: 'account' | BondStatus,
    validator: ValidatorRecord,
  ): bigint {
    if (invalidExRate(validator)) throw stakingError(StakingCode.DelegatorShareExRateInvalid);
    const operator = operatorBytes(validator);
    const to = poolOf(validator.status);
    if (from === 'account') this.pools.delegate(delegator, to, amount);
    else this.pools.move(poolOf(from), to, amount);
    const { v, issued } = addTokensFromDel(validator, amount);
    this.setValidator(v);
    const d = this.delegation(delegator, operator);
    const shares = (d ? parseDec(d.shares) : 0n) + issued;
    this.setDelegation(delegator, operator, {
      delegator_address: accBech(delegator),
      validator_address: validator.operator_address,
      shares: formatDec(shares),
    });
    return issued;
  }

  /** ValidateUnbondAmount: the shares `amount` tokens are, capped at the delegation's. */
  unbondShares(delegator: Uint8Array, operator: Uint8Array, amount: bigint): bigint {
    const v = this.mustValidator(operator);
    const d = this.delegation(delegator, operator);
    if (!d) throw stakingError(StakingCode.NoDelegation);
    const shares = sharesFromTokens(v, amount);
    const truncated = sharesFromTokensTruncated(v, amount);
    if (shares === undefined || truncated === undefined) throw stakingError(StakingCode.InsufficientShares);
    const have = parseDec(d.shares);
    if (truncated > have) throw stakingError(StakingCode.NotEnoughDelegationShares, 'invalid shares amount');
    return shares > have ? have : shares;
  }

  /** Keeper.Unbond: removes `shares` from the delegation and the validator; returns their tokens. */
  unbond(delegator: Uint8Array, operator: Uint8Array, shares: bigint): bigint {
    const d = this.delegation(delegator, operator);
    if (!d) throw stakingError(StakingCode.NoDelegation);
    const have = parseDec(d.shares);
    if (have < shares) throw stakingError(StakingCode.NotEnoughDelegationShares, d.shares);
    let v = this.mustValidator(operator);
    const left = have - shares;
    // an operator whose own stake drops below its minimum is jailed, as the SDK does
    if (equalBytes(delegator, operator) && !v.jailed) {
      if (decTruncateInt(tokensFromShares(v, left)) < BigInt(v.min_self_delegation))
        v = { ...v, jailed: true };
    }
    this.setDelegation(delegator, operator, left === 0n ? undefined : { ...d, shares: formatDec(left) });
    const removed = removeDelShares(v, shares);
    if (sharesOf(removed.v) === 0n && removed.v.status === 'BOND_STATUS_UNBONDED')
      this.removeValidator(removed.v);
    else this.setValidator(removed.v);
    return removed.tokens;
  }

  /** Keeper.Undelegate: unbonds and starts an unbonding entry; returns its amount and completion. */
  undelegate(
    delegator: Uint8Array,
    operator: Uint8Array,
    shares: bigint,
  ): { amount: bigint; completionNs: bigint } {
    const v = this.mustValidator(operator);
    const ubd = this.unbondingDelegation(delegator, operator);
    if ((ubd?.entries.length ?? 0) >= this.params.maxEntries)
      throw stakingError(StakingCode.MaxUnbondingDelegationEntries);
    const amount = this.unbond(delegator, operator, shares);
    if (v.status === 'BOND_STATUS_BONDED') this.pools.move('bonded', 'not_bonded', amount);
    const completionNs = this.block.timeNs + this.params.unbondingTimeNs;
    const record: UnbondingDelegationRecord = ubd ?? {
      delegator_address: accBech(delegator),
      validator_address: v.operator_address,
      entries: [],
    };
    const entry = {
      creation_height: String(this.block.height),
      completion_time: formatTime(completionNs),
      initial_balance: amount.toString(),
      balance: amount.toString(),
      unbonding_id: '0',
      unbonding_on_hold_ref_count: '0',
    };
    // an entry of the same height and completion is merged into, as the SDK's AddEntry does
    const same = record.entries.findIndex(
      (e) => e.creation_height === entry.creation_height && e.completion_time === entry.completion_time,
    );
    if (same >= 0) {
      const e = record.entries[same];
      record.entries[same] = {
        ...e,
        initial_balance: (BigInt(e.initial_balance) + amount).toString(),
        balance: (BigInt(e.balance) + amount).toString(),
      };
    } else record.entries.push(entry);
    this.setUnbondingDelegation(delegator, operator, record);
    this.enqueue({
      kind: 'unbonding',
      time_ns: completionNs.toString(),
      delegator: accBech(delegator),
      validator: v.operator_address,
    });
    return { amount, completionNs };
  }

  /** Keeper.BeginRedelegation; returns the completion time (the block time when nothing matures). */
  beginRedelegation(delegator: Uint8Array, src: Uint8Array, dst: Uint8Array, shares: bigint): bigint {
    if (equalBytes(src, dst)) throw stakingError(StakingCode.SelfRedelegation);
    const dstV = this.mustValidator(dst, StakingCode.BadRedelegationDst);
    const srcV = this.mustValidator(src, StakingCode.BadRedelegationSrc);
    if (this.redelegationsOf(delegator).some(([, , to]) => equalBytes(to, src)))
      throw stakingError(StakingCode.TransitiveRedelegation);
    const red = this.redelegation(delegator, src, dst);
    if ((red?.entries.length ?? 0) >= this.params.maxEntries)
      throw stakingError(StakingCode.MaxRedelegationEntries);
    const amount = this.unbond(delegator, src, shares);
    if (amount === 0n) throw stakingError(StakingCode.TinyRedelegationAmount);
    const sharesDst = this.delegate(
      delegator,
      amount,
      srcV.status,
      this.mustValidator(dst, StakingCode.BadRedelegationDst),
    );
    void dstV;
    let completionNs: bigint;
    let height = this.block.height;
    if (srcV.status === 'BOND_STATUS_BONDED') completionNs = this.block.timeNs + this.params.unbondingTimeNs;
    else if (srcV.status === 'BOND_STATUS_UNBONDING') {
      completionNs = parseTimeNs(srcV.unbonding_time ?? '1970-01-01T00:00:00Z');
      height = Number(srcV.unbonding_height);
    } else return this.block.timeNs; // from an unbonded validator nothing is at stake: no entry
    const record: RedelegationRecord = red ?? {
      delegator_address: accBech(delegator),
      validator_src_address: valBech(src),
      validator_dst_address: valBech(dst),
      entries: [],
    };
    record.entries.push({
      creation_height: String(height),
      completion_time: formatTime(completionNs),
      initial_balance: amount.toString(),
      shares_dst: formatDec(sharesDst),
      unbonding_id: '0',
      unbonding_on_hold_ref_count: '0',
    });
    this.setRedelegation(delegator, src, dst, record);
    this.enqueue({
      kind: 'redelegation',
      time_ns: completionNs.toString(),
      delegator: accBech(delegator),
      src: valBech(src),
      dst: valBech(dst),
    });
    return completionNs;
  }

  /**
   * Keeper.Slash of the validator with `operator`: `fraction` of `power` × 10^6 tokens, the
   * unbonding delegations and redelegations that started at or after `infractionHeight` first.
   * Returns the tokens burned.
   */
  slash(
    operator: Uint8Array,
    infractionHeight: number,
    power: bigint,
    fraction: bigint,
    powerReduction: bigint,
  ): bigint {
    let v = this.validator(operator);
    if (!v || v.status === 'BOND_STATUS_UNBONDED') return 0n;
    const slashAmount = decTruncateInt(decMul(power * powerReduction * 10n ** 18n, fraction));
    let remaining = slashAmount;
    let burned = 0n;
    if (infractionHeight < this.block.height) {
      for (const delegator of this.unbondingDelegatorsOf(operator)) {
        const r = this.slashUnbonding(delegator, operator, infractionHeight, fraction);
        remaining -= r.total;
        burned += r.burned;
      }
      for (const [delegator, src, dst] of this.redelegationsFrom(operator)) {
        const r = this.slashRedelegation(delegator, src, dst, infractionHeight, fraction);
        remaining -= r.total;
        burned += r.burned;
      }
      v = this.validator(operator)!;
    }
    if (remaining < 0n) remaining = 0n;
    const fromValidator = remaining < tokensOf(v) ? remaining : tokensOf(v);
    if (fromValidator > 0n) {
      this.setValidator({ ...v, tokens: (tokensOf(v) - fromValidator).toString() });
      this.pools.burn(poolOf(v.status), fromValidator);
    }
    return burned + fromValidator;
  }

  private slashUnbonding(
    delegator: Uint8Array,
    operator: Uint8Array,
    infractionHeight: number,
    fraction: bigint,
  ) {
    const ubd = this.unbondingDelegation(delegator, operator)!;
    let total = 0n;
    let burned = 0n;
    const entries = ubd.entries.map((e) => {
      if (Number(e.creation_height) < infractionHeight || parseTimeNs(e.completion_time) <= this.block.timeNs)
        return e;
      const amount = decTruncateInt(decMul(BigInt(e.initial_balance) * 10n ** 18n, fraction));
      total += amount;
      const take = amount < BigInt(e.balance) ? amount : BigInt(e.balance);
      burned += take;
      return { ...e, balance: (BigInt(e.balance) - take).toString() };
    });
    this.setUnbondingDelegation(delegator, operator, { ...ubd, entries });
    this.pools.burn('not_bonded', burned);
    return { total, burned };
  }

  private slashRedelegation(
    delegator: Uint8Array,
    src: Uint8Array,
    dst: Uint8Array,
    infractionHeight: number,
    fraction: bigint,
  ) {
    const red = this.redelegation(delegator, src, dst)!;
    let total = 0n;
    let burned = 0n;
    for (const e of red.entries) {
      if (Number(e.creation_height) < infractionHeight || parseTimeNs(e.completion_time) <= this.block.timeNs)
        continue;
      total += decTruncateInt(decMul(BigInt(e.initial_balance) * 10n ** 18n, fraction));
      let shares = decMul(fraction, parseDec(e.shares_dst));
      if (shares === 0n) continue;
      const d = this.delegation(delegator, dst);
      if (!d) continue;
      if (shares > parseDec(d.shares)) shares = parseDec(d.shares);
      const dstV = this.mustValidator(dst);
      const tokens = this.unbond(delegator, dst, shares);
      this.pools.burn(poolOf(dstV.status), tokens);
      burned += tokens;
    }
    return { total, burned };
  }

  setJailed(operator: Uint8Array, jailed: boolean): void {
    const v = this.validator(operator);
    if (v && v.jailed !== jailed) this.setValidator({ ...v, jailed });
  }
}
