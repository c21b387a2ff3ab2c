/**
 * One Common per chain Common for simulations and block executors. Every eth_call (and every block)
 * builds a VM, an EVM, a block header and a transaction, and each of those copies its Common and
 * merges its parameter set into it (a JSON deep copy and a params-cache rebuild apiece): most of a
 * cheap call's cost. They share one copy with every parameter set merged once instead, as
 * transactions.ts does for decoded txs; sharing is safe because the chain's hardfork is fixed for
 * its life.
 */
import { paramsBlock } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { getOpcodesForHF, paramsEVM } from '@ethereumjs/evm';
import { paramsTx } from '@ethereumjs/tx';
import { paramsVM } from '@ethereumjs/vm';

const shared = new WeakMap<Common, Common>();

export function sharedCommon(common: Common): Common {
  let s = shared.get(common);
  if (s === undefined) {
    const c = common.copy();
    const merged = [paramsVM, paramsEVM, paramsBlock, paramsTx];
    for (const p of merged) c.updateParams(p);
    const update = c.updateParams.bind(c);
    c.copy = () => c;
    c.updateParams = (params) => (merged.includes(params) ? c : update(params));
    shared.set(common, c);
    s = c;
  }
  return s;
}

/**
 * Every EVM subscribes to its Common's hardfork changes; on the shared Common those listeners would
 * keep every simulation's EVM alive. The hardfork never changes, so they are dropped after each build.
 */
export function dropHardforkListeners(common: Common): void {
  common.events.removeAllListeners('hardforkChanged');
}

type Handlers = ReturnType<typeof getOpcodesForHF>['handlers'];
const stock = new WeakMap<Common, Handlers>();

/** The stock opcode handlers of the shared Common (built once). */
export function stockHandlers(common: Common): Handlers {
  let h = stock.get(common);
  if (h === undefined) stock.set(common, (h = getOpcodesForHF(common).handlers));
  return h;
}
