/** The JSON forms of grpc-gateway's scalar values, which every rendering of a message builds on. */
import type { Coin } from 'cosmjs-types/cosmos/base/v1beta1/coin';
import type { PageResponse } from 'cosmjs-types/cosmos/base/query/v1beta1/pagination';
import type { Json } from '../codecs/json.ts';

export type { Json };

export const base64 = (b: Uint8Array): string =>
  Buffer.from(b.buffer, b.byteOffset, b.length).toString('base64');
/** Empty bytes are a nil slice in Go, which jsonpb prints as null. */
export const bytesJson = (b: Uint8Array): Json => (b.length > 0 ? base64(b) : null);

/** A Timestamp as jsonpb prints it: RFC 3339 in UTC with 0, 3, 6 or 9 fraction digits. */
export function timestampJson(t: { seconds: bigint | number; nanos: number }): string {
  const base = new Date(Number(t.seconds) * 1000).toISOString().slice(0, 19);
  if (t.nanos === 0) return `${base}Z`;
  const digits = String(t.nanos).padStart(9, '0');
  const len = digits.endsWith('000000') ? 3 : digits.endsWith('000') ? 6 : 9;
  return `${base}.${digits.slice(0, len)}Z`;
}

/** LegacyDec travels in protobuf as its integer scaled by 10^18; the JSON shows the decimal. */
export function decJson(scaled: string): string {
  const neg = scaled.startsWith('-');
  const digits = (neg ? scaled.slice(1) : scaled).padStart(19, '0');
  return `${neg ? '-' : ''}${digits.slice(0, -18)}.${digits.slice(-18)}`;
}

export const coinJson = (c: Coin): Json => ({ denom: c.denom, amount: c.amount });

export function pageResponseJson(p: PageResponse | undefined): Json {
  return { next_key: bytesJson(p?.nextKey ?? new Uint8Array(0)), total: String(p?.total ?? 0n) };
}
