/**
 * OpenEthereum's `stateDiff` trace type, as reth serves it: for every account the transaction changed,
 * `{balance, code, nonce, storage}`, each field `"="` (unchanged), `{"+": v}` (the account did not
 * exist before: every field is born) or `{"*": {from, to}}`; storage lists only changed slots (32-byte
 * keys and values). An account that did not exist before and is empty after (created and destroyed
 * in the transaction, or only touched) is left out, as is an existing account that did not change.
 *
 * The touched accounts and slots are the prestate tracer's (the same lookups as geth's
 * prestateTracer); this tracer reads them again once the transaction is over. Balances are this
 * chain's eth_getBalance view (bank balances in wei); the fee collector is the coinbase and receives
 * the whole fee (see prestate-tracer.ts).
 */
import { equalBytes } from '../../primitives/bytes.ts';
import { hexBytes, quantity } from './hex.ts';
import { PrestateTracer } from './prestate-tracer.ts';
import type { TraceTxContext } from './tracer.ts';

export type Delta<T> = '=' | { '+': T } | { '-': T } | { '*': { from: T; to: T } };

export interface AccountDiffJson {
  balance: Delta<string>;
  code: Delta<string>;
  nonce: Delta<string>;
  storage: Record<string, Delta<string>>;
}

export type StateDiffJson = Record<string, AccountDiffJson>;

function delta<T>(existed: boolean, from: T, to: T, same: boolean): Delta<T> {
  if (!existed) return { '+': to };
  return same ? '=' : { '*': { from, to } };
}

export class StateDiffTracer extends PrestateTracer {
  override readonly name: string = 'stateDiff';
  private diff: StateDiffJson = {};

  constructor(ctx: TraceTxContext) {
    super(undefined, ctx);
  }

  override async onTxEnd(): Promise<void> {
    const state = this.state!;
    const out: StateDiffJson = {};
    for (const key of [...this.pre.keys()].sort()) {
      const acc = this.pre.get(key)!;
      const existed = !acc.empty;
      const balance = await state.balance(acc.address);
      const nonce = await state.nonce(acc.address);
      const code = await state.code(acc.address);
      const storage: Record<string, Delta<string>> = {};
      for (const slot of [...acc.storage.keys()].sort()) {
        const before = acc.storage.get(slot)!;
        const now = await state.storage(acc.address, Buffer.from(slot, 'hex'));
        if (equalBytes(before, now)) continue;
        storage['0x' + slot] = delta(existed, hexBytes(before), hexBytes(now), false);
      }
      const preBalance = acc.balance ?? 0n;
      const sameInfo = balance === preBalance && nonce === acc.nonce && equalBytes(code, acc.code);
      if (existed && sameInfo && Object.keys(storage).length === 0) continue;
      if (!existed && balance === 0n && nonce === 0n && code.length === 0) continue;
      // the diff is printed with both sides of each changed field
      this.charge(200 + 4 * code.length + 200 * Object.keys(storage).length);
      out['0x' + key] = {
        balance: delta(existed, quantity(preBalance), quantity(balance), balance === preBalance),
        code: delta(existed, hexBytes(acc.code), hexBytes(code), equalBytes(code, acc.code)),
        nonce: delta(existed, quantity(acc.nonce), quantity(nonce), nonce === acc.nonce),
        storage,
      };
    }
    this.diff = out;
  }

  /** The transaction's state diff (after the traced run). */
  stateDiff(): StateDiffJson {
    return this.diff;
  }
}
