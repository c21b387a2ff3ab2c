/**
 * Minimal protobuf wire writer for the messages the node hashes or signs. It follows gogoproto's
 * marshalling: fields in field-number order (the caller writes them in order), proto3 scalars and byte
 * strings omitted when they hold their default value, and embedded messages written only when the
 * caller says so (gogo's non-nullable fields are always written, even when empty). Hashed and signed
 * bytes must be canonical, which is why this exists instead of a general-purpose codec.
 */
import { ByteWriter } from '../primitives/byte-io.ts';

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LEN = 2;

const TWO_64 = 1n << 64n;
const encoder = new TextEncoder();

export class ProtoWriter {
  private readonly w = new ByteWriter(64);

  private tag(field: number, wire: number): void {
    this.w.uv((field << 3) | wire);
  }

  /** An unsigned varint of a non-negative safe integer. */
  rawVarint(n: number): void {
    this.w.uv(n);
  }

  /** An unsigned varint of a 64-bit value; negative int64s are written as their two's complement. */
  rawVarint64(v: bigint): void {
    this.w.big(v < 0n ? v + TWO_64 : v);
  }

  rawBytes(b: Uint8Array): void {
    this.w.raw(b);
  }

  /** int32/int64/uint32/uint64/enum field; omitted when zero. */
  varint(field: number, value: number | bigint): this {
    if (value === 0 || value === 0n) return this;
    this.tag(field, WIRE_VARINT);
    if (typeof value === 'bigint') this.rawVarint64(value);
    else if (value >= 0) this.rawVarint(value);
    // negative int32/int64 are sign-extended to 64 bits (10 bytes), as protobuf requires
    else this.rawVarint64(BigInt(value));
    return this;
  }

  /** sfixed64 field (little-endian two's complement); omitted when zero. */
  sfixed64(field: number, value: number | bigint): this {
    const v = BigInt(value);
    if (v === 0n) return this;
    this.tag(field, WIRE_FIXED64);
    this.w.i64le(v);
    return this;
  }

  /** bytes field; omitted when empty. */
  bytes(field: number, value: Uint8Array): this {
    if (value.length === 0) return this;
    return this.lengthDelimited(field, value);
  }

  /** string field; omitted when empty. */
  string(field: number, value: string): this {
    if (value.length === 0) return this;
    return this.lengthDelimited(field, encoder.encode(value));
  }

  /**
   * Embedded message field, given its encoding. Always written (even when empty): use it for gogo
   * non-nullable fields and for nullable ones that are set; skip the call for unset nullable ones.
   */
  message(field: number, encoded: Uint8Array): this {
    return this.lengthDelimited(field, encoded);
  }

  private lengthDelimited(field: number, value: Uint8Array): this {
    this.tag(field, WIRE_LEN);
    this.rawVarint(value.length);
    this.rawBytes(value);
    return this;
  }

  finish(): Uint8Array {
    return this.w.finish();
  }
}

/** `uvarint(len) ‖ bytes`: protobuf's length-delimited framing (Go `protoio.MarshalDelimited`). */
export function lengthDelimited(message: Uint8Array): Uint8Array {
  const w = new ProtoWriter();
  w.rawVarint(message.length);
  w.rawBytes(message);
  return w.finish();
}
