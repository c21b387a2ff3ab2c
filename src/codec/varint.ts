/**
 * Varint encoders used by Cosmos hashing: protobuf-style unsigned varints (`uvarint`) and Go's
 * `binary.PutVarint` signed zig-zag varints (`zz`). Values are JS numbers; every use in the node is
 * far below 2^53 (heights, sizes, versions, lengths).
 */

/** Appends the unsigned varint of n to out at off; returns the new offset. */
export function putUvarint(out: Uint8Array, off: number, n: number): number {
  while (n >= 0x80) {
    out[off++] = (n % 0x80) | 0x80;
    n = Math.floor(n / 0x80);
  }
  out[off++] = n;
  return off;
}

/** Bytes putUvarint writes for n (any non-negative safe integer). */
export function uvarintLength(n: number): number {
  let len = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 0x80);
    len++;
  }
  return len;
}

/** Appends the zig-zag signed varint of n (Go `binary.PutVarint`); returns the new offset. */
export function putZigzag(out: Uint8Array, off: number, n: number): number {
  // zig-zag: 0,-1,1,-2,2 -> 0,1,2,3,4; done arithmetically so values above 2^31 stay exact
  return putUvarint(out, off, n >= 0 ? n * 2 : -n * 2 - 1);
}

export function uvarint(n: number): Uint8Array {
  const out = new Uint8Array(10);
  return out.subarray(0, putUvarint(out, 0, n));
}

export function zigzag(n: number): Uint8Array {
  const out = new Uint8Array(10);
  return out.subarray(0, putZigzag(out, 0, n));
}

/** Reads an unsigned varint at off; returns [value, nextOffset]. Throws on truncation. */
export function readUvarint(buf: Uint8Array, off: number): [number, number] {
  let n = 0;
  let mul = 1;
  for (let i = 0; i < 10; i++) {
    if (off >= buf.length) throw new RangeError('truncated varint');
    const b = buf[off++];
    n += (b & 0x7f) * mul;
    if (b < 0x80) return [n, off];
    mul *= 0x80;
  }
  throw new RangeError('varint too long');
}
