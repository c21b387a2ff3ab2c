/**
 * Which height a block reference names, under the watermark rule: a height is served only when it is
 * ≤ the chain's latest committed height (the block store is written first in the pipeline, so a
 * stored block above it is not final yet). `latest`, `safe`, `finalized` name the same block
 * (instant finality). `pending` names the latest block for block lookups; for state reads and
 * simulations `statePoint` keeps it apart, as the pending state (latest + the mempool's executable txs).
 * `earliest` is one height for every method: the lowest height whose block and state are both
 * served, so a block, a balance and a log query at `earliest` all name the same block. That is the
 * genesis block 0 until the State Store prunes, then the earliest height it keeps (blocks below it
 * stay readable by number), as the reference node resolves `earliest` to its lowest available height.
 *
 *   lookups (blocks, txs, receipts): above latest or unknown hash → undefined (the method answers null)
 *   state reads: above latest or unknown hash → error, as geth ("header not found")
 *   both: a pruned height → error naming the earliest available height
 */
import type { BlockNumberRef, BlockRef } from '../codecs/block-ref.ts';
import { hash32 } from '../codecs/hex.ts';
import { ChainError } from '../../util/errors.ts';
import type { ChainReader, StatePoint } from './backend.ts';

export class HeaderNotFoundError extends ChainError {
  constructor(message = 'header not found') {
    super('RPC_HEADER_NOT_FOUND', message);
  }
}

export class HeightPrunedError extends ChainError {
  readonly earliest: number;
  constructor(height: number, earliest: number, what: string, reason = 'pruned') {
    super(
      'RPC_HEIGHT_PRUNED',
      `${what} at height ${height} is not available (${reason}): the earliest available height is ${earliest}`,
    );
    this.earliest = earliest;
  }
}

/** A question about an address's history whose answer needs heights the address index lacks. */
export class AddressIndexIncompleteError extends ChainError {
  constructor(what: string, since: number | undefined) {
    super(
      'RPC_ADDRESS_INDEX_INCOMPLETE',
      since === undefined
        ? `${what} needs the address index, which holds no block yet`
        : `${what} needs blocks below ${since}, the first height in this node's address index ` +
            '(earlier blocks were stored before the index existed, pruned, or lie below a state-sync snapshot)',
    );
  }
}

export class Resolver {
  private readonly chain: ChainReader;
  constructor(chain: ChainReader) {
    this.chain = chain;
  }

  /** A tag or number as a height, not clamped: may be above latest. */
  number(ref: BlockNumberRef): number {
    if (ref.kind === 'number') return ref.height;
    return ref.tag === 'earliest' ? this.earliest() : this.chain.latestHeight();
  }

  /** The height `earliest` names: the lowest one with both its block and its state. */
  earliest(): number {
    return Math.max(this.chain.earliestBlockHeight(), this.chain.earliestStateHeight());
  }

  /** The height of a block lookup, or undefined when it is unknown or above latest. */
  lookup(ref: BlockRef): number | undefined {
    const latest = this.chain.latestHeight();
    const h = ref.kind === 'hash' ? this.chain.heightByHash(ref.hash) : this.number(ref);
    if (h === undefined || h > latest) return undefined;
    this.assertBlockRetained(h);
    return h;
  }

  /** The height whose state a read wants; throws when it is unknown, in the future or pruned. */
  state(ref: BlockRef): number {
    const latest = this.chain.latestHeight();
    let h: number | undefined;
    if (ref.kind === 'hash') {
      h = this.chain.heightByHash(ref.hash);
      if (h === undefined || h > latest)
        throw new HeaderNotFoundError(`header for hash ${hash32(ref.hash)} not found`);
    } else {
      h = this.number(ref);
      if (h > latest) throw new HeaderNotFoundError();
    }
    const earliest = this.chain.earliestStateHeight();
    if (h < earliest)
      throw new HeightPrunedError(h, earliest, 'state', this.chain.stateUnavailableReason?.());
    return h;
  }

  /** As `state`, but `pending` stays the pending state rather than the latest height. */
  statePoint(ref: BlockRef): StatePoint {
    return ref.kind === 'tag' && ref.tag === 'pending' ? 'pending' : this.state(ref);
  }

  assertBlockRetained(h: number): void {
    const earliest = this.chain.earliestBlockHeight();
    if (h < earliest) throw new HeightPrunedError(h, earliest, 'block');
  }
}
