/**
 * The filter object of eth_getLogs (and, later, eth_newFilter): `fromBlock`/`toBlock` or `blockHash`
 * (exclusive), `address` as one address, a list or null, `topics` as up to four positions, each null
 * (any), one topic, or a list of alternatives.
 */
import { type BlockNumberRef, parseFilterBlockNumber } from './block-ref.ts';
import { CodecError } from './errors.ts';
import { parseAddress, parseHash } from './hex.ts';

export const MAX_TOPICS = 4;

export interface LogFilter {
  fromBlock?: BlockNumberRef;
  toBlock?: BlockNumberRef;
  blockHash?: Uint8Array;
  /** Empty: any address. */
  addresses: Uint8Array[];
  /** Position-wise; null: any topic at that position. */
  topics: (Uint8Array[] | null)[];
}

const FIELDS = new Set(['fromBlock', 'toBlock', 'blockHash', 'address', 'topics']);

export function parseFilter(v: unknown): LogFilter {
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    throw new CodecError('filter must be an object with fromBlock, toBlock, blockHash, address, topics');
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!FIELDS.has(k)) throw new CodecError(`unknown field "${k}" in filter`);
  const present = (k: string) => o[k] !== undefined && o[k] !== null;
  const filter: LogFilter = { addresses: parseAddresses(o.address), topics: parseTopics(o.topics) };
  if (present('blockHash')) {
    if (present('fromBlock') || present('toBlock'))
      throw new CodecError('cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other');
    filter.blockHash = field('blockHash', () => parseHash(o.blockHash));
  }
  if (present('fromBlock')) filter.fromBlock = field('fromBlock', () => parseFilterBlockNumber(o.fromBlock));
  if (present('toBlock')) filter.toBlock = field('toBlock', () => parseFilterBlockNumber(o.toBlock));
  return filter;
}

/** Names the field inside the filter object in the problem text. */
function field<T>(name: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof CodecError) throw new CodecError(`${name}: ${err.message}`);
    throw err;
  }
}

function parseAddresses(v: unknown): Uint8Array[] {
  if (v === undefined || v === null) return [];
  if (Array.isArray(v)) return v.map((a, i) => field(`address[${i}]`, () => parseAddress(a)));
  return [field('address', () => parseAddress(v))];
}

function parseTopics(v: unknown): (Uint8Array[] | null)[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new CodecError('topics must be an array');
  if (v.length > MAX_TOPICS) throw new CodecError(`too many topics: ${v.length}, at most ${MAX_TOPICS}`);
  return v.map((t, i) => {
    if (t === null) return null;
    if (Array.isArray(t)) {
      // [] and [null] mean "any" at this position, as in geth.
      if (t.some((x) => x === null)) return null;
      return t.length === 0 ? null : t.map((x, j) => field(`topics[${i}][${j}]`, () => parseHash(x)));
    }
    return [field(`topics[${i}]`, () => parseHash(t))];
  });
}
