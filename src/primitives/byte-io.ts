/**
 * The one growable byte writer and bounds-checked byte reader behind the node's binary formats
 * (protobuf sign bytes, block store records, State Commit log entries). Integers that are usually
 * small are LEB128 varints (bigints too, so 256-bit quantities cost only what they need); signed
 * values use zig-zag; fixed-width integers say their byte order in their name.
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

export class ByteWriter {
  /**
   * Backing buffer, valid up to `len`; replaced when it grows. Public so that a hot loop can
   * `ensure` room once and then write fields without a bounds check each (see the SC log codec).
   */
  buf: Uint8Array;
  len = 0;

  constructor(initial = 256) {
    this.buf = new Uint8Array(Math.max(1, initial));
  }

  /** Makes room for `extra` more bytes at `len`. */
  ensure(extra: number): void {
    if (this.len + extra <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + extra) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  u8(n: number): this {
    this.ensure(1);
    this.buf[this.len++] = n;
    return this;
  }

  u16be(n: number): this {
    this.ensure(2);
    this.buf[this.len++] = n >>> 8;
    this.buf[this.len++] = n & 0xff;
    return this;
  }

  /** Little-endian two's complement 64-bit integer (protobuf fixed64/sfixed64). */
  i64le(v: bigint): this {
    this.ensure(8);
    new DataView(this.buf.buffer, this.buf.byteOffset).setBigInt64(this.len, v, true);
    this.len += 8;
    return this;
  }

  /** Unsigned varint of a non-negative safe integer. */
  uv(n: number): this {
    this.ensure(10);
    const buf = this.buf;
    let len = this.len;
    while (n >= 0x80) {
      buf[len++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    buf[len++] = n;
    this.len = len;
    return this;
  }

  /** Zig-zag varint of a safe integer (negative timestamps, e.g. Go's zero time). */
  sv(n: number): this {
    return this.uv(n >= 0 ? n * 2 : -n * 2 - 1);
  }

  /** Unsigned varint of a non-negative bigint of any size. */
  big(v: bigint): this {
    while (v >= 0x80n) {
      this.ensure(1);
      this.buf[this.len++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    return this.u8(Number(v));
  }

  /** Bytes of a length both sides know (addresses, hashes), or already framed. */
  raw(b: Uint8Array): this {
    this.ensure(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
    return this;
  }

  /** Varint length ‖ bytes. */
  bytes(b: Uint8Array): this {
    return this.uv(b.length).raw(b);
  }

  /** Varint length ‖ UTF-8. */
  str(s: string): this {
    return this.bytes(encoder.encode(s));
  }

  /** A copy of the written bytes (the writer may be reused or dropped). */
  finish(): Uint8Array {
    return this.buf.slice(0, this.len);
  }

  /** The written bytes without a copy: for a writer that is dropped right after. */
  view(): Uint8Array {
    return this.buf.subarray(0, this.len);
  }
}

/**
 * Reads what ByteWriter wrote, checking bounds; every failure goes through `corrupt`, so that each
 * format reports damage with its own typed error.
 */
export class ByteReader {
  readonly buf: Uint8Array;
  off: number;
  private readonly corrupt: (detail: string, reader: ByteReader) => Error;

  constructor(buf: Uint8Array, corrupt: (detail: string, reader: ByteReader) => Error, off = 0) {
    this.buf = buf;
    this.corrupt = corrupt;
    this.off = off;
  }

  fail(detail: string): never {
    throw this.corrupt(detail, this);
  }

  private need(n: number): void {
    if (this.off + n > this.buf.length) this.fail(`needs ${n} more bytes`);
  }

  get remaining(): number {
    return this.buf.length - this.off;
  }

  u8(): number {
    this.need(1);
    return this.buf[this.off++];
  }

  u16be(): number {
    this.need(2);
    const v = (this.buf[this.off] << 8) | this.buf[this.off + 1];
    this.off += 2;
    return v;
  }

  /** Unsigned varint of a safe integer (at most 8 bytes: 2^56 and above is not a safe count). */
  uv(): number {
    let n = 0;
    let mul = 1;
    for (let i = 0; i < 8; i++) {
      const b = this.u8();
      n += (b & 0x7f) * mul;
      if (b < 0x80) return n;
      mul *= 0x80;
    }
    this.fail('varint too long');
  }

  sv(): number {
    const z = this.uv();
    return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
  }

  big(): bigint {
    let v = 0n;
    let shift = 0n;
    for (;;) {
      const b = this.u8();
      v |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return v;
      shift += 7n;
      if (shift > 7n * 40n) this.fail('big varint too long');
    }
  }

  /** A view (no copy) of the next n bytes: valid as long as the buffer read from is. */
  raw(n: number): Uint8Array {
    this.need(n);
    const v = this.buf.subarray(this.off, this.off + n);
    this.off += n;
    return v;
  }

  bytes(): Uint8Array {
    return this.raw(this.uv());
  }

  str(): string {
    const b = this.bytes();
    try {
      return decoder.decode(b);
    } catch {
      this.fail('invalid UTF-8');
    }
  }

  skip(n: number): void {
    this.need(n);
    this.off += n;
  }

  /** Skips one LEB128 varint of any size. */
  skipVarint(): void {
    while (this.u8() >= 0x80);
  }

  end(): void {
    if (this.off !== this.buf.length) this.fail('trailing bytes');
  }
}
