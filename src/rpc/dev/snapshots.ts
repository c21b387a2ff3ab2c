/**
 * Snapshots and resets as Hardhat and anvil serve them: `evm_snapshot` (anvil: `anvil_snapshot`)
 * records the chain as it is and answers its id ("0x1", "0x2", …); `evm_revert(id)` (`anvil_revert`)
 * brings the chain back to it (state, blocks, pool, clock, mining mode), deletes it and every later
 * one and answers true, or false for an id it does not hold; `hardhat_reset` / `anvil_reset` bring
 * the chain back to its genesis state at height 0 (true for Hardhat's name, null for anvil's).
 * How the node does it is node/'s (docs/adr/0029-dev-chain-methods.md: a revert is a rollback of
 * every store, in process).
 */
import { inField } from '../codecs/call.ts';
import { CodecError } from '../codecs/errors.ts';
import { jsonKind, quantity } from '../codecs/hex.ts';
import { optional, type ParamCodec } from '../codecs/params.ts';
import { method, type MethodTable } from '../server/dispatcher.ts';
import type { DevForkRequest, DevNode } from './backend.ts';
import { uint } from './params.ts';

/** What `hardhat_reset` / `anvil_reset` are asked: `[{}]`, `[]` or `[{ forking: {...} }]`. */
export interface ResetRequest {
  /** Hardhat's `forking` object `{ jsonRpcUrl, blockNumber? }` (anvil's alike). */
  forking?: DevForkRequest;
}

function forkingOf(v: unknown): DevForkRequest {
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new CodecError('forking: an object { jsonRpcUrl, blockNumber? } is expected');
  const { jsonRpcUrl, blockNumber } = v as { jsonRpcUrl?: unknown; blockNumber?: unknown };
  if (typeof jsonRpcUrl !== 'string' || !/^https?:\/\//.test(jsonRpcUrl))
    throw new CodecError('forking.jsonRpcUrl: an http(s) URL is expected');
  if (blockNumber === undefined || blockNumber === null) return { url: jsonRpcUrl };
  return { url: jsonRpcUrl, blockNumber: inField('forking.blockNumber', () => uint.parse(blockNumber)) };
}

const resetRequest: ParamCodec<ResetRequest | undefined> = optional({
  optional: false,
  parse: (v): ResetRequest => {
    if (typeof v !== 'object' || Array.isArray(v))
      throw new CodecError(`json: cannot unmarshal ${jsonKind(v)} into the reset options object`);
    const { forking } = v as { forking?: unknown };
    return forking === undefined || forking === null ? {} : { forking: forkingOf(forking) };
  },
});

export function snapshotMethods(dev: DevNode): MethodTable {
  const { snapshots } = dev;
  const take = method([], async () => quantity(await snapshots.take()));
  const revert = method([uint], (id) => snapshots.revert(id));
  const reset = (request: ResetRequest | undefined) => snapshots.reset(request?.forking);
  return {
    evm_snapshot: take,
    anvil_snapshot: take,
    evm_revert: revert,
    anvil_revert: revert,
    hardhat_reset: method([resetRequest], async (request) => {
      await reset(request);
      return true;
    }),
    anvil_reset: method([resetRequest], async (request) => {
      await reset(request);
      return null;
    }),
  };
}
