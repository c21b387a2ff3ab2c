/**
 * Validator records (read-only: the chain has no staking transactions; validators come from genesis). Stored as canonical
 * JSON in the genesis shape, which is also the REST shape, plus an index of operators for listing.
 */
import { fromBech32 } from '../crypto/accounts.ts';
import { fromUtf8, utf8 } from '../primitives/bytes.ts';
import { BECH32_VALOPER_PREFIX } from '../primitives/identity.ts';
import type { StateReader } from '../state/overlay.ts';
import type { StakingValidator } from './genesis.ts';
import { entriesUnder, type StateRanges, type StateWriter } from './state-access.ts';
import { STORES, stakingKeys } from './store-keys.ts';

const INDEX_KEY = Uint8Array.of(0x20);

export class StakingReader {
  protected readonly state: StateReader;
  constructor(state: StateReader) {
    this.state = state;
  }

  validator(operatorAddress: string): StakingValidator | undefined {
    let bytes: Uint8Array;
    try {
      bytes = fromBech32(operatorAddress, BECH32_VALOPER_PREFIX);
    } catch {
      return undefined;
    }
    const raw = this.state.get(STORES.staking, stakingKeys.validator(bytes));
    return raw ? (JSON.parse(fromUtf8(raw)) as StakingValidator) : undefined;
  }

  /** All validators in operator-address order. */
  validators(): StakingValidator[] {
    const index = this.state.get(STORES.staking, INDEX_KEY);
    const operators = index ? (JSON.parse(fromUtf8(index)) as string[]) : [];
    return operators.map((op) => this.validator(op)!).filter(Boolean);
  }
}

/**
 * Every validator in store-key order (by operator address bytes, where validators() lists by the
 * bech32 text), each with its store key: the order and position names of the SDK's paginated listing.
 */
export async function listValidators(
  state: StateRanges,
): Promise<{ key: Uint8Array; validator: StakingValidator }[]> {
  const prefix = stakingKeys.validator(new Uint8Array(0)).subarray(0, 1);
  return (await entriesUnder(state, STORES.staking, prefix)).map((e) => ({
    key: e.key,
    validator: JSON.parse(fromUtf8(e.value)) as StakingValidator,
  }));
}

export class Staking extends StakingReader {
  private readonly writer: StateWriter;
  constructor(state: StateWriter) {
    super(state);
    this.writer = state;
  }

  setValidator(v: StakingValidator): void {
    const operator = fromBech32(v.operator_address, BECH32_VALOPER_PREFIX);
    this.writer.set(STORES.staking, stakingKeys.validator(operator), utf8(JSON.stringify(v)));
    const index = this.writer.get(STORES.staking, INDEX_KEY);
    const operators = new Set(index ? (JSON.parse(fromUtf8(index)) as string[]) : []);
    operators.add(v.operator_address);
    this.writer.set(STORES.staking, INDEX_KEY, utf8(JSON.stringify([...operators].sort())));
  }
}
