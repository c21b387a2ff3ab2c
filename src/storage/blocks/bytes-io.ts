/**
 * The byte writer and reader behind the block store's record formats. Integers that are usually
 * small are LEB128 varints (bigints too, so 256-bit quantities cost only what they need); signed
 * values use zig-zag. Readers check bounds and throw CorruptRecordError rather than reading garbage.
 */
import { CorruptRecordError } from './errors.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

export class ByteWriter {
  private buf: Uint8Array;
  private len = 0;

  constructor(initial = 256) {
    this.buf = new Uint8Array(initial);
  }

  private ensure(extra: number): void {
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

  u16(n: number): this {
    this.ensure(2);
    this.buf[this.len++] = n >>> 8;
    this.buf[this.len++] = n & 0xff;
    return this;
  }

  /** Unsigned varint of a non-negative safe integer. */
  uv(n: number): this {
    this.ensure(10);
    while (n >= 0x80) {
      this.buf[this.len++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.buf[this.len++] = n;
    return this;
  }

  /** Zig-zag varint of a safe integer (negative timestamps, e.g. Go's zero time). */
  sv(n: number): this {
    return this.uv(n >= 0 ? n * 2 : -n * 2 - 1);
  }

  /** Unsigned varint of a non-negative bigint of any size. */
  big(v: bigint): this {
    this.ensure(40);
    while (v >= 0x80n) {
      this.ensure(1);
      this.buf[this.len++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buf[this.len++] = Number(v);
    return this;
  }

  /** Bytes of a length both sides know (addresses, hashes). */
  raw(b: Uint8Array): this {
    this.ensure(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
    return this;
  }

  /** Length-prefixed bytes. */
  bytes(b: Uint8Array): this {
    return this.uv(b.length).raw(b);
  }

  str(s: string): this {
    return this.bytes(encoder.encode(s));
  }

  finish(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}

export class ByteReader {
  readonly buf: Uint8Array;
  off: number;
  private readonly what: string;

  constructor(buf: Uint8Array, what: string, off = 0) {
    this.buf = buf;
    this.what = what;
    this.off = off;
  }

  fail(detail: string): never {
    throw new CorruptRecordError(this.what, `${detail} at byte ${this.off} of ${this.buf.length}`);
  }

  private need(n: number): void {
    if (this.off + n > this.buf.length) this.fail(`needs ${n} more bytes`);
  }

  u8(): number {
    this.need(1);
    return this.buf[this.off++];
  }

  u16(): number {
    this.need(2);
    const v = (this.buf[this.off] << 8) | this.buf[this.off + 1];
    this.off += 2;
    return v;
  }

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

  /** A view (no copy) of the next n bytes; records are fresh copies from the engine, so views are safe. */
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
