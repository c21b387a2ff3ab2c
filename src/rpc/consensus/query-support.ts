/**
 * What every module's query handlers share: the SDK's query errors, request decoding, address
 * checks, key pagination and the State Store's listings at the query height.
 */
import type { PageRequest, PageResponse } from 'cosmjs-types/cosmos/base/query/v1beta1/pagination';
import type { StateRanges } from '../../app/state-access.ts';
import { fromBech32 } from '../../crypto/accounts.ts';
import { compareBytes } from '../../primitives/bytes.ts';
import type { StateView } from './types.ts';

/** A failed query, as the Cosmos SDK reports gRPC errors through ABCI (codespace "sdk"). */
export class QueryError extends Error {
  readonly abciCode: number;
  constructor(abciCode: number, log: string) {
    super(log);
    this.abciCode = abciCode;
  }
}

/** gRPC InvalidArgument → sdk ErrInvalidRequest (18), worded as the SDK's gRPC bridge words it. */
export const invalidArgument = (desc: string) =>
  new QueryError(18, `rpc error: code = InvalidArgument desc = ${desc}: invalid request`);
/** gRPC NotFound → sdk ErrKeyNotFound (22); CosmJS's getAccount maps exactly this to null. */
export const notFound = (desc: string) =>
  new QueryError(22, `rpc error: code = NotFound desc = ${desc}: key not found`);

export type QueryHandler = (request: Uint8Array, state: StateView, height: number) => Promise<Uint8Array>;

export function decode<T>(codec: { decode(b: Uint8Array): T }, bytes: Uint8Array): T {
  try {
    return codec.decode(bytes);
  } catch (err) {
    throw invalidArgument(`failed to decode request: ${(err as Error).message}`);
  }
}

export function address(bech32: string, prefix: string): Uint8Array {
  if (bech32 === '') throw invalidArgument('empty address string is not allowed');
  try {
    return fromBech32(bech32, prefix);
  } catch (err) {
    throw invalidArgument(`invalid address ${JSON.stringify(bech32)}: ${(err as Error).message}`);
  }
}

/** The Cosmos SDK's key pagination over an ordered list: key or offset, limit (default 100), reverse, count_total. */
export function paginate<T extends { key: Uint8Array }>(
  all: T[],
  page: PageRequest | undefined,
): { items: T[]; pagination: PageResponse } {
  const list = page?.reverse ? [...all].reverse() : all;
  const limit = page && page.limit > 0n ? Number(page.limit) : 100;
  if (page && page.key.length > 0 && page.offset > 0n)
    throw invalidArgument('either offset or key is expected, got both');
  let start = page ? Number(page.offset) : 0;
  if (page && page.key.length > 0) {
    start = list.findIndex((x) =>
      page.reverse ? compareBytes(x.key, page.key) <= 0 : compareBytes(x.key, page.key) >= 0,
    );
    if (start < 0) start = list.length;
  }
  const items = list.slice(start, start + limit);
  const next = list[start + limit];
  const countTotal = !page || page.countTotal || (page.key.length === 0 && page.offset === 0n);
  return {
    items,
    pagination: {
      nextKey: next ? next.key : new Uint8Array(0),
      total: countTotal ? BigInt(list.length) : 0n,
    },
  };
}

/** The State Store's listings at `height`, for the modules' listing readers. */
export function rangesAt(state: StateView, height: number): StateRanges {
  return { range: (store, start, end) => state.range(store, start, end, height) };
}
