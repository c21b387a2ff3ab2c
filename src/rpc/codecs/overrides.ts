/**
 * geth's state overrides (`{address: {balance, nonce, code, state, stateDiff}}`) and block overrides
 * (`{number, time, gasLimit, feeRecipient, prevRandao, baseFeePerGas, ...}`) of eth_call and
 * eth_estimateGas. Unlike the call object, unknown members are refused: a misspelt `stateDiff`
 * silently ignored would simulate something else than asked.
 */
import type { AccountOverride, BlockOverrides } from '../../execution/simulation/simulate.ts';
import { expectObject, inField } from './call.ts';
import { CodecError } from './errors.ts';
import { parseAddress, parseData, parseHash, parseQuantity } from './hex.ts';

export type { AccountOverride, BlockOverrides };

const ACCOUNT_FIELDS = new Set(['balance', 'nonce', 'code', 'state', 'stateDiff']);

/** `movePrecompiles`: whether `movePrecompileToAddress` is taken (eth_simulateV1 only). */
export function parseStateOverrides(v: unknown, movePrecompiles = false): AccountOverride[] {
  const o = expectObject(v, 'override.StateOverride');
  return Object.entries(o).map(([addr, value]) => {
    const address = inField(`address ${addr}`, () => parseAddress(addr));
    const a = inField(addr, () => expectObject(value, 'override.OverrideAccount'));
    const out: AccountOverride = { address };
    for (const k of Object.keys(a)) {
      if (k === 'movePrecompileToAddress' && !movePrecompiles)
        throw new CodecError(`${addr}: movePrecompileToAddress is not supported by this node`);
      if (!ACCOUNT_FIELDS.has(k) && k !== 'movePrecompileToAddress')
        throw new CodecError(`${addr}: unknown field "${k}" in account override`);
    }
    const has = (k: string) => a[k] !== undefined && a[k] !== null;
    if (has('balance')) out.balance = inField(`${addr}.balance`, () => parseQuantity(a.balance, 256));
    if (has('nonce')) out.nonce = inField(`${addr}.nonce`, () => parseQuantity(a.nonce, 64));
    if (has('code')) out.code = inField(`${addr}.code`, () => parseData(a.code));
    if (has('state')) out.state = parseSlots(`${addr}.state`, a.state);
    if (has('movePrecompileToAddress'))
      out.movePrecompileTo = inField(`${addr}.movePrecompileToAddress`, () =>
        parseAddress(a.movePrecompileToAddress),
      );
    if (has('stateDiff')) out.stateDiff = parseSlots(`${addr}.stateDiff`, a.stateDiff);
    return out;
  });
}

function parseSlots(name: string, v: unknown): { slot: Uint8Array; value: Uint8Array }[] {
  const o = inField(name, () => expectObject(v, 'map[common.Hash]common.Hash'));
  return Object.entries(o).map(([slot, value]) => ({
    slot: inField(`${name} key ${slot}`, () => parseHash(slot)),
    value: inField(`${name}[${slot}]`, () => parseHash(value)),
  }));
}

/** Accepted spellings: geth's current names and its older `coinbase`/`baseFee`/`random`. */
const BLOCK_FIELDS: Record<string, keyof BlockOverrides | 'ignored' | 'unsupported'> = {
  number: 'number',
  time: 'time',
  gasLimit: 'gasLimit',
  feeRecipient: 'coinbase',
  coinbase: 'coinbase',
  baseFeePerGas: 'baseFee',
  baseFee: 'baseFee',
  prevRandao: 'prevRandao',
  random: 'prevRandao',
  // proof-of-stake and blob-less: geth ignores difficulty after the merge; no blobs here
  difficulty: 'ignored',
  blobBaseFee: 'ignored',
  beaconRoot: 'unsupported',
  withdrawals: 'unsupported',
};

export function parseBlockOverrides(v: unknown): BlockOverrides {
  const o = expectObject(v, 'override.BlockOverrides');
  const out: BlockOverrides = {};
  for (const [k, value] of Object.entries(o)) {
    const target = BLOCK_FIELDS[k];
    if (target === undefined) throw new CodecError(`unknown field "${k}" in block overrides`);
    if (target === 'unsupported')
      throw new CodecError(`block override "${k}" is not supported for this RPC method`);
    if (target === 'ignored' || value === null || value === undefined) continue;
    if (target === 'coinbase') out.coinbase = inField(k, () => parseAddress(value));
    else if (target === 'prevRandao') out.prevRandao = inField(k, () => parseHash(value));
    else if (target === 'number' || target === 'baseFee')
      out[target] = inField(k, () => parseQuantity(value, 256));
    else out[target] = inField(k, () => parseQuantity(value, 64));
  }
  return out;
}
