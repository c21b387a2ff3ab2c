/**
 * The bonded and not-bonded pools: bank balances of two module accounts whose addresses are the
 * SDK's (the first 20 bytes of SHA-256 of the module name). Every move records bank's events.
 */
import { createHash } from 'node:crypto';
import { toAccAddress } from '../../crypto/accounts.ts';
import { BASE_DENOM, WEI_PER_UCHAIN } from '../../primitives/identity.ts';
import type { TxEvent } from '../../storage/blocks/types.ts';
import { Bank, InsufficientFundsError } from '../bank.ts';
import { CosmosTxError, SdkCode } from '../cosmos-errors.ts';
import type { StateWriter } from '../state-access.ts';
import { burnEvents, delegateCoinsEvents, sendCoinsEvents } from '../bank-events.ts';

export const moduleAddress = (name: string): Uint8Array =>
  new Uint8Array(createHash('sha256').update(name).digest().subarray(0, 20));

export const BONDED_POOL = moduleAddress('bonded_tokens_pool');
export const NOT_BONDED_POOL = moduleAddress('not_bonded_tokens_pool');

export type Pool = 'bonded' | 'not_bonded';
const poolAddress = (p: Pool) => (p === 'bonded' ? BONDED_POOL : NOT_BONDED_POOL);
const coins = (n: bigint) => `${n}${BASE_DENOM}`;

export class Pools {
  private readonly bank: Bank;
  private readonly events: TxEvent[];
  constructor(state: StateWriter, events: TxEvent[]) {
    this.bank = new Bank(state);
    this.events = events;
  }

  balance(pool: Pool): bigint {
    return this.bank.uchain(poolAddress(pool));
  }

  /** A delegator's tokens into a pool (bank's DelegateCoinsFromAccountToModule). */
  delegate(from: Uint8Array, pool: Pool, amount: bigint): void {
    try {
      this.bank.transferWei(from, poolAddress(pool), amount * WEI_PER_UCHAIN);
    } catch (err) {
      if (!(err instanceof InsufficientFundsError)) throw err;
      throw new CosmosTxError(
        SdkCode.InsufficientFunds,
        `failed to delegate; ${err.have / WEI_PER_UCHAIN}${BASE_DENOM} is smaller than ${coins(amount)}: insufficient funds`,
      );
    }
    this.events.push(
      ...delegateCoinsEvents(toAccAddress(from), toAccAddress(poolAddress(pool)), coins(amount)),
    );
  }

  /** Tokens from the not-bonded pool back to a delegator (UndelegateCoinsFromModuleToAccount). */
  undelegate(pool: Pool, to: Uint8Array, amount: bigint): void {
    if (amount === 0n) return;
    this.bank.transferWei(poolAddress(pool), to, amount * WEI_PER_UCHAIN);
    this.events.push(
      ...delegateCoinsEvents(toAccAddress(poolAddress(pool)), toAccAddress(to), coins(amount)),
    );
  }

  move(from: Pool, to: Pool, amount: bigint): void {
    if (amount === 0n || from === to) return;
    this.bank.transferWei(poolAddress(from), poolAddress(to), amount * WEI_PER_UCHAIN);
    this.events.push(
      ...sendCoinsEvents(toAccAddress(poolAddress(from)), toAccAddress(poolAddress(to)), coins(amount)),
    );
  }

  /** Burns from a pool and lowers the supply. */
  burn(pool: Pool, amount: bigint): void {
    if (amount === 0n) return;
    this.bank.subWei(poolAddress(pool), amount * WEI_PER_UCHAIN);
    this.bank.setSupply(this.bank.supply() - amount);
    this.events.push(...burnEvents(toAccAddress(poolAddress(pool)), coins(amount)));
  }
}
