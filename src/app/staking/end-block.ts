/**
 * Staking's end of a block, in the SDK's order: the bonded set is recomputed (tokens move between
 * the pools on status changes) and its diff against the last powers becomes the validator updates;
 * then unbonding validators, unbonding delegations and redelegations that are due complete.
 */
import { fromBech32 } from '../../crypto/accounts.ts';
import { compareBytes, toHex } from '../../primitives/bytes.ts';
import { BECH32_ACCOUNT_PREFIX, BECH32_VALOPER_PREFIX } from '../../primitives/identity.ts';
import type { TxEvent } from '../../storage/blocks/types.ts';
import type { StateWriter } from '../state-access.ts';
import { ev } from '../bank-events.ts';
import { Staking } from './keeper.ts';
import { POWER_REDUCTION } from './params.ts';
import { consAddressOf, consPubKey, type LastPower, operatorBytes, type ValidatorRecord } from './records.ts';
import { sharesOf, tokensOf } from './shares.ts';
import { formatTime, parseTime, timeNs, type BlockTime } from './time.ts';

export interface StakingEndBlock {
  validatorUpdates: { pubKey: Uint8Array; power: bigint }[];
  events: TxEvent[];
}

export const powerOf = (v: ValidatorRecord): bigint => tokensOf(v) / POWER_REDUCTION;

/** The validators that should be bonded: most power first, ties by operator bytes; not jailed, power ≥ 1. */
export function bondedSet(validators: ValidatorRecord[], maxValidators: number): ValidatorRecord[] {
  return validators
    .filter((v) => !v.jailed && powerOf(v) >= 1n)
    .map((v) => ({ v, op: operatorBytes(v), power: powerOf(v) }))
    .sort((a, b) => (a.power === b.power ? compareBytes(a.op, b.op) : a.power > b.power ? -1 : 1))
    .slice(0, maxValidators)
    .map((x) => x.v);
}

export function stakingEndBlock(
  state: StateWriter,
  block: { height: number; time: BlockTime },
  afterValidatorBonded: (consAddress: Uint8Array) => void,
): StakingEndBlock {
  const k = new Staking(state, { height: block.height, timeNs: timeNs(block.time) });
  const validatorUpdates = applyValidatorSet(k, afterValidatorBonded);
  completeMatured(k);
  return { validatorUpdates, events: k.events };
}

function applyValidatorSet(k: Staking, afterValidatorBonded: (consAddress: Uint8Array) => void) {
  const last = new Map(k.lastPowers().map((p) => [p.operator, BigInt(p.power)]));
  const updates: { op: Uint8Array; pubKey: Uint8Array; power: bigint }[] = [];
  const next: LastPower[] = [];
  for (const chosen of bondedSet(k.validators(), k.params.maxValidators)) {
    const op = operatorBytes(chosen);
    let v = chosen;
    if (v.status !== 'BOND_STATUS_BONDED') {
      k.pools.move('not_bonded', 'bonded', tokensOf(v));
      v = { ...v, status: 'BOND_STATUS_BONDED', unbonding_height: '0', unbonding_time: formatTime(0n) };
      k.setValidator(v);
      afterValidatorBonded(consAddressOfRecord(v));
    }
    const power = powerOf(v);
    const hex = toHex(op);
    if (last.get(hex) !== power) updates.push({ op, pubKey: consPubKey(v), power });
    last.delete(hex);
    next.push({ operator: hex, power: power.toString() });
  }
  for (const [hex] of last) {
    const op = Uint8Array.from(Buffer.from(hex, 'hex'));
    const v = k.validator(op);
    if (!v) continue;
    if (v.status === 'BOND_STATUS_BONDED') {
      k.pools.move('bonded', 'not_bonded', tokensOf(v));
      const doneNs = k.block.timeNs + k.params.unbondingTimeNs;
      k.setValidator({
        ...v,
        status: 'BOND_STATUS_UNBONDING',
        unbonding_height: String(k.block.height),
        unbonding_time: formatTime(doneNs),
      });
      k.enqueue({ kind: 'validator', time_ns: doneNs.toString(), validator: v.operator_address });
    }
    updates.push({ op, pubKey: consPubKey(v), power: 0n });
  }
  next.sort((a, b) => a.operator.localeCompare(b.operator));
  if (updates.length > 0) k.setLastPowers(next);
  return updates.sort((a, b) => compareBytes(a.op, b.op)).map(({ pubKey, power }) => ({ pubKey, power }));
}

function completeMatured(k: Staking): void {
  const done = new Set<string>();
  for (const item of k.dequeueMature(k.block.timeNs)) {
    if (item.kind === 'validator') {
      const op = fromBech32(item.validator, BECH32_VALOPER_PREFIX);
      const v = k.validator(op);
      // a validator bonded again since (or unbonding anew, later) is not due
      if (
        !v ||
        v.status !== 'BOND_STATUS_UNBONDING' ||
        parseTime(v.unbonding_time ?? '1970-01-01T00:00:00Z') > k.block.timeNs
      )
        continue;
      const unbonded: ValidatorRecord = { ...v, status: 'BOND_STATUS_UNBONDED' };
      if (sharesOf(unbonded) === 0n) k.removeValidator(unbonded);
      else k.setValidator(unbonded);
      continue;
    }
    const key = JSON.stringify(item);
    if (done.has(key)) continue;
    done.add(key);
    if (item.kind === 'unbonding') completeUnbonding(k, item.delegator, item.validator);
    else completeRedelegation(k, item.delegator, item.src, item.dst);
  }
}

function completeUnbonding(k: Staking, delegatorBech: string, validatorBech: string): void {
  const delegator = fromBech32(delegatorBech, BECH32_ACCOUNT_PREFIX);
  const validator = fromBech32(validatorBech, BECH32_VALOPER_PREFIX);
  const ubd = k.unbondingDelegation(delegator, validator);
  if (!ubd) return;
  let amount = 0n;
  const entries = ubd.entries.filter((e) => {
    if (parseTime(e.completion_time) > k.block.timeNs) return true;
    amount += BigInt(e.balance);
    return false;
  });
  if (entries.length === ubd.entries.length) return;
  k.setUnbondingDelegation(delegator, validator, { ...ubd, entries });
  k.pools.undelegate('not_bonded', delegator, amount);
  k.events.push(
    ev('complete_unbonding', {
      amount: `${amount}${k.params.bondDenom}`,
      validator: validatorBech,
      delegator: delegatorBech,
    }),
  );
}

function completeRedelegation(k: Staking, delegatorBech: string, srcBech: string, dstBech: string): void {
  const delegator = fromBech32(delegatorBech, BECH32_ACCOUNT_PREFIX);
  const src = fromBech32(srcBech, BECH32_VALOPER_PREFIX);
  const dst = fromBech32(dstBech, BECH32_VALOPER_PREFIX);
  const red = k.redelegation(delegator, src, dst);
  if (!red) return;
  let amount = 0n;
  const entries = red.entries.filter((e) => {
    if (parseTime(e.completion_time) > k.block.timeNs) return true;
    amount += BigInt(e.initial_balance);
    return false;
  });
  if (entries.length === red.entries.length) return;
  k.setRedelegation(delegator, src, dst, { ...red, entries });
  k.events.push(
    ev('complete_redelegation', {
      amount: `${amount}${k.params.bondDenom}`,
      delegator: delegatorBech,
      source_validator: srcBech,
      destination_validator: dstBech,
    }),
  );
}

const consAddressOfRecord = (v: ValidatorRecord) => consAddressOf(consPubKey(v));
