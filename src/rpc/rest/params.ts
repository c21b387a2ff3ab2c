/**
 * Request inputs as grpc-gateway reads them: query parameters named by field path
 * (`pagination.limit`), Go's ParseBool/ParseUint spellings, bytes in base64 (standard or URL-safe),
 * and the `x-cosmos-block-height` header that selects the state a query reads.
 */
import type { PageRequest } from 'cosmjs-types/cosmos/base/query/v1beta1/pagination';
import { invalidArgument } from './errors.ts';
import type { RestDeps } from './types.ts';

export const HEIGHT_HEADER = 'x-cosmos-block-height';

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

/**
 * The height a state query reads: the `x-cosmos-block-height` header, or the latest committed
 * height when absent or 0 (as the SDK does). Heights above the latest or below what the State Store
 * still keeps are refused, not silently answered from another height.
 */
export function queryHeight(header: string | string[] | undefined, deps: RestDeps): number {
  const latest = deps.chain.latestHeight();
  if (header === undefined) return latest;
  const v = Array.isArray(header) ? header[0] : header;
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v)))
    throw invalidArgument(
      `invalid height header ${JSON.stringify(HEIGHT_HEADER)}: ${JSON.stringify(v)} is not a non-negative integer`,
    );
  const height = Number(v);
  if (height === 0) return latest;
  if (height > latest)
    throw invalidArgument(
      `cannot query with height in the future; please provide a valid height: height ${height} is above the latest height ${latest}`,
    );
  const earliest = deps.stateEarliestHeight();
  if (height < earliest)
    throw invalidArgument(
      `failed to load state at height ${height}; version does not exist (earliest height: ${earliest})`,
    );
  return height;
}
