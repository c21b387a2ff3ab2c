/**
 * The state that reads at `pending` see: the pending block's parent state (pending-block.ts) with the
 * pending txs' writes on top, through the app modules' readers as StateAt reads a height; when nothing
 * is pending (no pools given, or nothing executable), the latest state. The pending block is asked for
 * on every read, as the pools and the latest height move between reads.
 */
import { AccountReader } from '../app/accounts.ts';
import type { StateReader } from '../state/overlay.ts';
import type { Chain } from './chain.ts';
import { type PendingBlocks, withPendingWrites } from './pending-block.ts';
import type { StateAt } from './state-at.ts';

/** What StateAt offers, over the pending state. */
export type PendingStateAt = Pick<StateAt, 'read' | 'balance' | 'nonce' | 'code' | 'codeHash' | 'storage'>;

export function pendingStateAt(
  chain: Pick<Chain, 'latestHeight' | 'stateAt'>,
  pending: Pick<PendingBlocks, 'current'> | undefined,
): PendingStateAt {
  // the parent height's reads (and its version cache) under the pending writes
  const read = async <T>(fn: (state: StateReader) => T): Promise<T> => {
    const p = pending ? await pending.current() : undefined;
    const at = chain.stateAt(p?.parentHeight ?? chain.latestHeight);
    const writes = p?.execution?.writes;
    return writes ? at.read((s) => fn(withPendingWrites(writes, s))) : at.read(fn);
  };
  return {
    read,
    balance: (a) => read((s) => new AccountReader(s).balance(a)),
    nonce: (a) => read((s) => new AccountReader(s).nonce(a)),
    code: (a) => read((s) => new AccountReader(s).code(a)),
    codeHash: (a) => read((s) => new AccountReader(s).codeHash(a)),
    storage: (a, slot) => read((s) => new AccountReader(s).storage(a, slot)),
  };
}
