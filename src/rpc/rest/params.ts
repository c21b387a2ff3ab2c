/**
 * Request inputs as grpc-gateway reads them: query parameters named by field path
 * (`pagination.limit`), Go's ParseBool/ParseUint spellings, bytes in base64 (standard or URL-safe),
 * and the `x-cosmos-block-height` header that selects the state a query reads.
 */
import type { PageRequest } from 'cosmjs-types/cosmos/base/query/v1beta1/pagination';
import { HEIGHT_HEADER, QueryHeightError, queryHeightOf } from '../codecs/cosmos.ts';
import { invalidArgument } from './errors.ts';
import type { RestDeps } from './types.ts';

export { HEIGHT_HEADER };

const TRUE = new Set(['1', 't', 'T', 'true', 'TRUE', 'True']);
const FALSE = new Set(['0', 'f', 'F', 'false', 'FALSE', 'False']);
const UINT64_MAX = 2n ** 64n - 1n;

export function boolParam(q: URLSearchParams, name: string): boolean {
  const v = q.get(name);
  if (v === null || v === '') return false;
  if (TRUE.has(v)) return true;
  if (FALSE.has(v)) return false;
  throw invalidArgument(`${name}: ${JSON.stringify(v)} is not a boolean (expected true or false)`);
}

export function uint64Param(q: URLSearchParams, name: string): bigint {
  const v = q.get(name);
  if (v === null || v === '') return 0n;
  if (!/^\d{1,20}$/.test(v) || BigInt(v) > UINT64_MAX)
    throw invalidArgument(`${name}: ${JSON.stringify(v)} is not an unsigned 64-bit integer`);
  return BigInt(v);
}

export function bytesParam(q: URLSearchParams, name: string): Uint8Array {
  const v = q.get(name);
  if (v === null || v === '') return new Uint8Array(0);
  // URLSearchParams turns an unescaped '+' into a space; base64 has no spaces, so restore it.
  const s = v.replace(/ /g, '+');
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(s))
    throw invalidArgument(`${name}: ${JSON.stringify(v)} is not base64`);
  return new Uint8Array(Buffer.from(s.replace(/-/g, '+').replace(/_/g, '/'), 'base64'));
}

/** `pagination.*` query parameters → PageRequest (its meaning is the query service's, shared with gRPC). */
export function pageRequest(q: URLSearchParams): PageRequest {
  return {
    key: bytesParam(q, 'pagination.key'),
    offset: uint64Param(q, 'pagination.offset'),
    limit: uint64Param(q, 'pagination.limit'),
    countTotal: boolParam(q, 'pagination.count_total'),
    reverse: boolParam(q, 'pagination.reverse'),
  };
}

/** The height a state query reads (the shared `x-cosmos-block-height` rule), as a REST 400. */
export function queryHeight(header: string | string[] | undefined, deps: RestDeps): number {
  try {
    const value = Array.isArray(header) ? header[0] : header;
    return queryHeightOf(value, deps.chain.latestHeight(), () => deps.stateEarliestHeight());
  } catch (err) {
    throw err instanceof QueryHeightError ? invalidArgument(err.message) : err;
  }
}
