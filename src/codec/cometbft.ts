/**
 * CometBFT value types that take part in hashes and signatures, with their canonical protobuf
 * encodings (gogoproto rules: defaults omitted, non-nullable embedded messages always written).
 * Heights, rounds and times are JS numbers: every value the node handles is far below 2^53.
 */
import { CodecError } from './errors.ts';
import { ProtoWriter } from './proto.ts';

/** google.protobuf.Timestamp. `nanos` in [0, 1e9). */
export interface Timestamp {
  seconds: number;
  nanos: number;
}

export interface PartSetHeader {
  total: number;
  hash: Uint8Array;
}

export interface BlockID {
  hash: Uint8Array;
  partSetHeader: PartSetHeader;
}

/** tendermint.version.Consensus: block protocol and app version. */
export interface ConsensusVersion {
  block: number;
  app: number;
}

/** CometBFT's block protocol version (version.BlockProtocol). */
export const BLOCK_PROTOCOL = 11;

/** Go's zero `time.Time` (0001-01-01T00:00:00Z): the timestamp of an absent commit signature. */
export const GO_ZERO_TIME: Timestamp = { seconds: -62135596800, nanos: 0 };

export const EMPTY_BLOCK_ID: BlockID = {
  hash: new Uint8Array(0),
  partSetHeader: { total: 0, hash: new Uint8Array(0) },
};

export function timestampFromDate(date: Date): Timestamp {
  const ms = date.getTime();
  if (!Number.isFinite(ms)) throw new CodecError('timestamp: invalid date');
  const seconds = Math.floor(ms / 1000);
  return { seconds, nanos: (ms - seconds * 1000) * 1_000_000 };
}

export function assertTimestamp(t: Timestamp, what = 'timestamp'): void {
  if (!Number.isSafeInteger(t.seconds))
    throw new CodecError(`${what}: seconds ${t.seconds} is not an integer`);
  if (!Number.isInteger(t.nanos) || t.nanos < 0 || t.nanos >= 1e9) {
    throw new CodecError(`${what}: nanos ${t.nanos} outside [0, 1e9)`);
  }
}

function assertUint(n: number, what: string, max = Number.MAX_SAFE_INTEGER): void {
  if (!Number.isInteger(n) || n < 0 || n > max)
    throw new CodecError(`${what}: ${n} is not an integer in [0, ${max}]`);
}

export function encodeTimestamp(t: Timestamp): Uint8Array {
  assertTimestamp(t);
  return new ProtoWriter().varint(1, t.seconds).varint(2, t.nanos).finish();
}

export function encodePartSetHeader(p: PartSetHeader): Uint8Array {
  assertUint(p.total, 'part set header total', 0xffffffff);
  return new ProtoWriter().varint(1, p.total).bytes(2, p.hash).finish();
}

/** tendermint.types.BlockID; part_set_header is non-nullable, so it is written even when empty. */
export function encodeBlockId(id: BlockID): Uint8Array {
  return new ProtoWriter().bytes(1, id.hash).message(2, encodePartSetHeader(id.partSetHeader)).finish();
}

export function encodeConsensusVersion(v: ConsensusVersion): Uint8Array {
  assertUint(v.block, 'version.block');
  assertUint(v.app, 'version.app');
  return new ProtoWriter().varint(1, v.block).varint(2, v.app).finish();
}

export function isZeroBlockId(id: BlockID): boolean {
  return id.hash.length === 0 && id.partSetHeader.total === 0 && id.partSetHeader.hash.length === 0;
}

// The header hash wraps scalar fields in gogo's well-known wrapper messages (field 1), Go `cdcEncode`.

export function encodeStringValue(s: string): Uint8Array {
  return new ProtoWriter().string(1, s).finish();
}

export function encodeInt64Value(n: number): Uint8Array {
  if (!Number.isSafeInteger(n)) throw new CodecError(`int64 value ${n} is not a safe integer`);
  return new ProtoWriter().varint(1, n).finish();
}

export function encodeBytesValue(b: Uint8Array): Uint8Array {
  return new ProtoWriter().bytes(1, b).finish();
}
