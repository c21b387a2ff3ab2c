/**
 * Minimal protobuf wire writer for the messages the node hashes or signs. It follows gogoproto's
 * marshalling: fields in field-number order (the caller writes them in order), proto3 scalars and byte
 * strings omitted when they hold their default value, and embedded messages written only when the
 * caller says so (gogo's non-nullable fields are always written, even when empty). Hashed and signed
 * bytes must be canonical, which is why this exists instead of a general-purpose codec.
 */

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LEN = 2;

const TWO_64 = 1n << 64n;
const encoder = new TextEncoder();

export class ProtoWriter {
  private buf = new Uint8Array(64);
  private len = 0;

  private ensure(extra: number): void {
    if (this.len + extra <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + extra) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  private tag(field: number, wire: number): void {
    this.rawVarint((field << 3) | wire);
  }

  /** An unsigned varint of a non-negative safe integer. */
  rawVarint(n: number): void {
    this.ensure(10);
    while (n >= 0x80) {
      this.buf[this.len++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.buf[this.len++] = n;
  }

  /** An unsigned varint of a 64-bit value; negative int64s are written as their two's complement. */
  rawVarint64(v: bigint): void {
    let n = v < 0n ? v + TWO_64 : v;
    this.ensure(10);
    while (n >= 0x80n) {
      this.buf[this.len++] = Number(n & 0x7fn) | 0x80;
      n >>= 7n;
    }
    this.buf[this.len++] = Number(n);
  }

  rawBytes(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
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
    this.ensure(8);
    new DataView(this.buf.buffer, this.buf.byteOffset).setBigInt64(this.len, v, true);
    this.len += 8;
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
    return this.buf.slice(0, this.len);
  }
}

/** `uvarint(len) ‖ bytes`: protobuf's length-delimited framing (Go `protoio.MarshalDelimited`). */
export function lengthDelimited(message: Uint8Array): Uint8Array {
  const w = new ProtoWriter();
  w.rawVarint(message.length);
  w.rawBytes(message);
  return w.finish();
}
