/**
 * Staking's records and their storage: validators, delegations, unbonding delegations,
 * redelegations, the last powers sent to CometBFT and the unbonding queue. Records are canonical
 * JSON in their REST shape. Block execution can only get and set keys, so whatever it must walk
 * (all validators, a validator's unbonding delegations and redelegations, the queue) is an index
 * value under one key.
 */
import { createHash } from 'node:crypto';
import { fromBech32, toAccAddress, toValoperAddress } from '../../crypto/accounts.ts';
import { compareBytes, fromHex, fromUtf8, toHex, utf8 } from '../../primitives/bytes.ts';
import { BECH32_VALOPER_PREFIX } from '../../primitives/identity.ts';
import type { StateReader } from '../../state/overlay.ts';
import type { StateWriter } from '../state-access.ts';
import { STORES, stakingKeys } from '../store-keys.ts';

/** A validator as stored and as REST prints it. */
export interface ValidatorRecord {
  operator_address: string;
  consensus_pubkey: { '@type': '/cosmos.crypto.ed25519.PubKey'; key: string };
  jailed: boolean;
  status: 'BOND_STATUS_BONDED' | 'BOND_STATUS_UNBONDING' | 'BOND_STATUS_UNBONDED';
  tokens: string;
  delegator_shares: string;
  description: {
    moniker: string;
    identity: string;
    website: string;
    security_contact: string;
    details: string;
  };
  commission: {
    commission_rates: { rate: string; max_rate: string; max_change_rate: string };
    update_time: string;
  };
  min_self_delegation: string;
  /** absent in a genesis: "0" */
  unbonding_height?: string;
  /** absent in a genesis: the zero time */
  unbonding_time?: string;
}

export interface DelegationRecord {
  delegator_address: string;
  validator_address: string;
  /** LegacyDec text */
  shares: string;
}

export interface UnbondingEntry {
  creation_height: string;
  completion_time: string;
  initial_balance: string;
  balance: string;
  unbonding_id: string;
  unbonding_on_hold_ref_count: string;
}

export interface UnbondingDelegationRecord {
  delegator_address: string;
  validator_address: string;
  entries: UnbondingEntry[];
}

export interface RedelegationEntry {
  creation_height: string;
  completion_time: string;
  initial_balance: string;
  /** LegacyDec text: the shares the redelegation created at the destination */
  shares_dst: string;
  unbonding_id: string;
  unbonding_on_hold_ref_count: string;
}

export interface RedelegationRecord {
  delegator_address: string;
  validator_src_address: string;
  validator_dst_address: string;
  entries: RedelegationEntry[];
}

export interface LastPower {
  /** operator address bytes, hex */
  operator: string;
  power: string;
}

/** What matures at `time_ns`: an unbonding delegation, a redelegation or an unbonding validator. */
export type QueueItem =
  | { kind: 'unbonding'; time_ns: string; delegator: string; validator: string }
  | { kind: 'redelegation'; time_ns: string; delegator: string; src: string; dst: string }
  | { kind: 'validator'; time_ns: string; validator: string };

/** 20-byte consensus address of an Ed25519 key: the first 20 bytes of its SHA-256. */
export function consAddressOf(pubKey: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(pubKey).digest().subarray(0, 20));
}

export const operatorBytes = (v: ValidatorRecord): Uint8Array =>
  fromBech32(v.operator_address, BECH32_VALOPER_PREFIX);
export const consPubKey = (v: ValidatorRecord): Uint8Array =>
  new Uint8Array(Buffer.from(v.consensus_pubkey.key, 'base64'));

const json = (v: unknown) => utf8(JSON.stringify(v));
function read<T>(raw: Uint8Array | undefined): T | undefined {
  return raw ? (JSON.parse(fromUtf8(raw)) as T) : undefined;
}

export class StakingStoreReader {
  protected readonly state: StateReader;
  constructor(state: StateReader) {
    this.state = state;
  }

  protected get<T>(key: Uint8Array): T | undefined {
    return read<T>(this.state.get(STORES.staking, key));
  }

  validator(operator: Uint8Array): ValidatorRecord | undefined {
    return this.get<ValidatorRecord>(stakingKeys.validator(operator));
  }

  validatorByConsAddr(consAddress: Uint8Array): ValidatorRecord | undefined {
    const op = this.state.get(STORES.staking, stakingKeys.validatorByConsAddr(consAddress));
    return op ? this.validator(op) : undefined;
  }

  /** Every validator's operator bech32, in text order. */
  validatorOperators(): string[] {
    return this.get<string[]>(stakingKeys.validatorIndex) ?? [];
  }

  /** Every validator, in operator-bech32 order. */
  validators(): ValidatorRecord[] {
    return this.validatorOperators()
      .map((op) => this.validator(fromBech32(op, BECH32_VALOPER_PREFIX)))
      .filter((v): v is ValidatorRecord => v !== undefined);
  }

  delegation(delegator: Uint8Array, validator: Uint8Array): DelegationRecord | undefined {
    return this.get(stakingKeys.delegation(delegator, validator));
  }

  unbondingDelegation(delegator: Uint8Array, validator: Uint8Array): UnbondingDelegationRecord | undefined {
    return this.get(stakingKeys.unbondingDelegation(delegator, validator));
  }

  /** The delegators with an unbonding delegation from `validator`. */
  unbondingDelegatorsOf(validator: Uint8Array): Uint8Array[] {
    return (this.get<string[]>(stakingKeys.unbondingByValidator(validator)) ?? []).map(fromHex);
  }

  redelegation(delegator: Uint8Array, src: Uint8Array, dst: Uint8Array): RedelegationRecord | undefined {
    return this.get(stakingKeys.redelegation(delegator, src, dst));
  }

  /** [delegator, src, dst] of every redelegation from `src`. */
  redelegationsFrom(src: Uint8Array): Uint8Array[][] {
    return (this.get<string[][]>(stakingKeys.redelegationsBySrc(src)) ?? []).map((t) => t.map(fromHex));
  }

  /** [delegator, src, dst] of every redelegation of `delegator`. */
  redelegationsOf(delegator: Uint8Array): Uint8Array[][] {
    return (this.get<string[][]>(stakingKeys.redelegationsByDelegator(delegator)) ?? []).map((t) =>
      t.map(fromHex),
    );
  }

  lastPowers(): LastPower[] {
    return this.get<LastPower[]>(stakingKeys.lastPowers) ?? [];
  }

  queue(): QueueItem[] {
    return this.get<QueueItem[]>(stakingKeys.unbondingQueue) ?? [];
  }
}

/** Adds or removes `item` (hex tuple) in a JSON list index kept sorted. */
function updateIndex(state: StateWriter, key: Uint8Array, item: string, add: boolean): void {
  const list = read<string[]>(state.get(STORES.staking, key)) ?? [];
  const has = list.includes(item);
  if (has === add) return;
  const next = add ? [...list, item].sort() : list.filter((x) => x !== item);
  state.set(STORES.staking, key, next.length ? json(next) : undefined);
}

function updateTupleIndex(state: StateWriter, key: Uint8Array, tuple: Uint8Array[], add: boolean): void {
  const item = tuple.map(toHex);
  const list = read<string[][]>(state.get(STORES.staking, key)) ?? [];
  const at = list.findIndex((t) => t.join() === item.join());
  if (at >= 0 === add) return;
  const next = add ? [...list, item].sort((a, b) => a.join().localeCompare(b.join())) : list.toSpliced(at, 1);
  state.set(STORES.staking, key, next.length ? json(next) : undefined);
}

export class StakingStore extends StakingStoreReader {
  private readonly writer: StateWriter;
  constructor(state: StateWriter) {
    super(state);
    this.writer = state;
  }

  setValidator(v: ValidatorRecord): void {
    const operator = operatorBytes(v);
    this.writer.set(STORES.staking, stakingKeys.validator(operator), json(v));
    this.writer.set(STORES.staking, stakingKeys.validatorByConsAddr(consAddressOf(consPubKey(v))), operator);
    updateIndex(this.writer, stakingKeys.validatorIndex, v.operator_address, true);
  }

  removeValidator(v: ValidatorRecord): void {
    const operator = operatorBytes(v);
    this.writer.set(STORES.staking, stakingKeys.validator(operator), undefined);
    this.writer.set(STORES.staking, stakingKeys.validatorByConsAddr(consAddressOf(consPubKey(v))), undefined);
    updateIndex(this.writer, stakingKeys.validatorIndex, v.operator_address, false);
  }

  setDelegation(delegator: Uint8Array, validator: Uint8Array, d: DelegationRecord | undefined): void {
    this.writer.set(STORES.staking, stakingKeys.delegation(delegator, validator), d && json(d));
  }

  setUnbondingDelegation(
    delegator: Uint8Array,
    validator: Uint8Array,
    u: UnbondingDelegationRecord | undefined,
  ): void {
    const keep = u !== undefined && u.entries.length > 0;
    this.writer.set(
      STORES.staking,
      stakingKeys.unbondingDelegation(delegator, validator),
      keep ? json(u) : undefined,
    );
    updateIndex(this.writer, stakingKeys.unbondingByValidator(validator), toHex(delegator), keep);
  }

  setRedelegation(
    delegator: Uint8Array,
    src: Uint8Array,
    dst: Uint8Array,
    r: RedelegationRecord | undefined,
  ): void {
    const keep = r !== undefined && r.entries.length > 0;
    this.writer.set(
      STORES.staking,
      stakingKeys.redelegation(delegator, src, dst),
      keep ? json(r) : undefined,
    );
    updateTupleIndex(this.writer, stakingKeys.redelegationsBySrc(src), [delegator, src, dst], keep);
    updateTupleIndex(
      this.writer,
      stakingKeys.redelegationsByDelegator(delegator),
      [delegator, src, dst],
      keep,
    );
  }

  setLastPowers(powers: LastPower[]): void {
    this.writer.set(STORES.staking, stakingKeys.lastPowers, powers.length ? json(powers) : undefined);
  }

  /** Inserts after every item of the same or an earlier time, so equal times keep their order. */
  enqueue(item: QueueItem): void {
    const q = this.queue();
    const t = BigInt(item.time_ns);
    let at = q.length;
    while (at > 0 && BigInt(q[at - 1].time_ns) > t) at--;
    q.splice(at, 0, item);
    this.writer.set(STORES.staking, stakingKeys.unbondingQueue, json(q));
  }

  /** Removes and returns the items due at `nowNs`. */
  dequeueMature(nowNs: bigint): QueueItem[] {
    const q = this.queue();
    let n = 0;
    while (n < q.length && BigInt(q[n].time_ns) <= nowNs) n++;
    if (n === 0) return [];
    this.writer.set(
      STORES.staking,
      stakingKeys.unbondingQueue,
      n === q.length ? undefined : json(q.slice(n)),
    );
    return q.slice(0, n);
  }
}

export const accBech = toAccAddress;
export const valBech = toValoperAddress;
export const byOperator = (a: ValidatorRecord, b: ValidatorRecord) =>
  compareBytes(operatorBytes(a), operatorBytes(b));
