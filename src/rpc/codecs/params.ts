/**
 * Parameter codecs: each method declares its positional parameters as a list of these, and the
 * dispatcher decodes every argument through them before the handler runs (so handlers receive typed
 * values: bigint, Uint8Array, BlockRef, ...). A codec throws CodecError with the problem; `optional`
 * parameters may be absent (or null) at the end of the list.
 */
import { type BlockNumberRef, type BlockRef, parseBlockNumber, parseBlockRef } from './block-ref.ts';
import { CodecError } from './errors.ts';
import { parseFilter, type LogFilter } from './filter.ts';
import { jsonKind, parseAddress, parseData, parseHash, parseQuantity, parseSmallQuantity } from './hex.ts';

export interface ParamCodec<T> {
  readonly optional: boolean;
  parse(v: unknown): T;
}

function required<T>(parse: (v: unknown) => T): ParamCodec<T> {
  return { optional: false, parse };
}

/** The same codec, but the argument may be omitted or null (the handler then gets undefined). */
export function optional<T>(c: ParamCodec<T>): ParamCodec<T | undefined> {
  return { optional: true, parse: (v) => (v === undefined || v === null ? undefined : c.parse(v)) };
}

export const p = {
  quantity: required((v) => parseQuantity(v, 256)),
  uint64: required((v) => parseQuantity(v, 64)),
  /** A quantity that is an index or a height (a JS number). */
  index: required(parseSmallQuantity),
  data: required(parseData),
  address: required(parseAddress),
  hash: required(parseHash),
  /** A 32-byte storage key; geth also accepts shorter hex and left-pads it. */
  storageKey: required(parseStorageKey),
  bool: required((v): boolean => {
    if (typeof v !== 'boolean')
      throw new CodecError(`json: cannot unmarshal ${jsonKind(v)} into Go value of type bool`);
    return v;
  }),
  blockNumber: required<BlockNumberRef>(parseBlockNumber),
  blockRef: required<BlockRef>(parseBlockRef),
  filter: required<LogFilter>(parseFilter),
} as const;

/** geth's eth_getStorageAt key: hex of at most 32 bytes (odd length allowed), left-padded to 32. */
function parseStorageKey(v: unknown): Uint8Array {
  if (typeof v !== 'string')
    throw new CodecError(`json: cannot unmarshal ${jsonKind(v)} into Go value of type string`);
  if (!(v.startsWith('0x') || v.startsWith('0X'))) throw new CodecError('hex string without 0x prefix');
  let body = v.slice(2);
  if (!/^[0-9a-fA-F]*$/.test(body)) throw new CodecError('invalid hex string');
  if (body.length > 64) throw new CodecError(`hex string too long, want at most 32 bytes`);
  if (body.length % 2 === 1) body = '0' + body;
  const out = new Uint8Array(32);
  out.set(Buffer.from(body, 'hex'), 32 - body.length / 2);
  return out;
}
