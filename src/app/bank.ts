/**
 * Balances in `uchain` per Cosmos address, plus a wei remainder below one uchain, so that the EVM's
 * 18-decimal balances are exact: EVM balance = uchain × 10^12 + remainder.
 */
import { fromUtf8 } from '../primitives/bytes.ts';
import { BASE_DENOM, WEI_PER_UCHAIN } from '../primitives/identity.ts';
import { ChainError } from '../util/errors.ts';
import { decimal, entriesUnder, readDecimal, type StateRanges, type StateWriter } from './state-access.ts';
import { bankKeys, STORES } from './store-keys.ts';
import type { StateReader } from '../state/overlay.ts';

export class InsufficientFundsError extends ChainError {
  readonly have: bigint;
  constructor(have: bigint, need: bigint) {
    super('INSUFFICIENT_FUNDS', `insufficient funds: balance ${have} wei, need ${need} wei`);
    this.have = have;
  }
}

export class BankReader {
  protected readonly state: StateReader;
  constructor(state: StateReader) {
    this.state = state;
  }

  uchain(addr: Uint8Array): bigint {
    return this.balance(addr, BASE_DENOM);
  }

  /** The Cosmos balance of one denom (no wei remainder: that belongs to the EVM's view of uchain). */
  balance(addr: Uint8Array, denom: string): bigint {
    return readDecimal(this.state.get(STORES.bank, bankKeys.balance(addr, denom)));
  }

  /** Balance in wei: uchain × 10^12 + remainder. */
  wei(addr: Uint8Array): bigint {
    const rem = readDecimal(this.state.get(STORES.bank, bankKeys.weiRemainder(addr)));
    return this.uchain(addr) * WEI_PER_UCHAIN + rem;
  }

  supply(denom = BASE_DENOM): bigint {
    return readDecimal(this.state.get(STORES.bank, bankKeys.supply(denom)));
  }
}

/**
 * Every denom `addr` holds a balance of, in denom order, each with its key below the address (what
 * the SDK's pagination names a position by).
 */
export async function listBalances(
  state: StateRanges,
  addr: Uint8Array,
): Promise<{ key: Uint8Array; denom: string; amount: bigint }[]> {
  const prefix = bankKeys.balance(addr, '');
  return (await entriesUnder(state, STORES.bank, prefix)).map((e) => {
    const key = e.key.subarray(prefix.length);
    return { key, denom: fromUtf8(key), amount: readDecimal(e.value) };
  });
}

/** Every denom's total supply, in denom order. */
export async function listSupplies(state: StateRanges): Promise<{ denom: string; amount: bigint }[]> {
  const prefix = bankKeys.supply('');
  return (await entriesUnder(state, STORES.bank, prefix)).map((e) => ({
    denom: fromUtf8(e.key.subarray(prefix.length)),
    amount: readDecimal(e.value),
  }));
}

export class Bank extends BankReader {
  private readonly writer: StateWriter;
  constructor(state: StateWriter) {
    super(state);
    this.writer = state;
  }

  /** Sets the balance in wei; zero amounts are deleted so empty accounts leave no keys. */
  setWei(addr: Uint8Array, wei: bigint): void {
    if (wei < 0n) throw new ChainError('NEGATIVE_BALANCE', `negative balance ${wei}`);
    const uchain = wei / WEI_PER_UCHAIN;
    const rem = wei % WEI_PER_UCHAIN;
    this.writer.set(
      STORES.bank,
      bankKeys.balance(addr, BASE_DENOM),
      uchain === 0n ? undefined : decimal(uchain),
    );
    this.writer.set(STORES.bank, bankKeys.weiRemainder(addr), rem === 0n ? undefined : decimal(rem));
  }

  addWei(addr: Uint8Array, amount: bigint): void {
    if (amount !== 0n) this.setWei(addr, this.wei(addr) + amount);
  }

  subWei(addr: Uint8Array, amount: bigint): void {
    const have = this.wei(addr);
    if (have < amount) throw new InsufficientFundsError(have, amount);
    if (amount !== 0n) this.setWei(addr, have - amount);
  }

  transferWei(from: Uint8Array, to: Uint8Array, amount: bigint): void {
    this.subWei(from, amount);
    this.addWei(to, amount);
  }

  setSupply(amount: bigint, denom = BASE_DENOM): void {
    this.writer.set(STORES.bank, bankKeys.supply(denom), amount === 0n ? undefined : decimal(amount));
  }
}
