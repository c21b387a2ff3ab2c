/**
 * Hex on the wire (hex strings exist only in rpc/codecs, config and logs: inside the node bytes are
 * Uint8Array). Parsing follows
 * geth's `hexutil` rules and wording, so a client that works against geth sees the same complaints:
 *   quantity  `0x`-prefixed, at least one digit, no leading zero digits ("0x0" is zero)
 *   data      `0x`-prefixed, even number of digits ("0x" is empty)
 *   fixed     data of an exact length (addresses 20 bytes, hashes 32); checksum case not required
 * Parsers throw CodecError with the problem only; the dispatcher adds which argument it was.
 */
import { hexInto, toHex } from '../../primitives/bytes.ts';
import { CodecError } from './errors.ts';

const HEX_DIGITS = /^[0-9a-fA-F]*$/;

function expectString(v: unknown, goType: string): string {
  if (typeof v !== 'string')
    throw new CodecError(`json: cannot unmarshal ${jsonKind(v)} into Go value of type ${goType}`);
  return v;
}

/** geth's (encoding/json) name for the kind of a JSON value that had the wrong type. */
export function jsonKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  return typeof v === 'string' ? 'string' : 'non-string';
}

function hexBody(s: string): string {
  if (s.length === 0) throw new CodecError('empty hex string');
  if (!(s.startsWith('0x') || s.startsWith('0X'))) throw new CodecError('hex string without 0x prefix');
  return s.slice(2);
}

/** A hex quantity of at most `bits` bits (64 for counts and heights, 256 for values). */
export function parseQuantity(v: unknown, bits = 256): bigint {
  const s = expectString(v, bits <= 64 ? 'hexutil.Uint64' : '*hexutil.Big');
  const body = hexBody(s);
  if (body.length === 0) throw new CodecError(`hex string "0x"`);
  if (!HEX_DIGITS.test(body)) throw new CodecError('invalid hex string');
  if (body.length > 1 && body[0] === '0') throw new CodecError('hex number with leading zero digits');
  if (body.length * 4 > bits && BigInt('0x' + body) >= 1n << BigInt(bits))
    throw new CodecError(`hex number > ${bits} bits`);
  return BigInt('0x' + body);
}

/** A quantity that must fit a JS safe integer (heights, indexes). */
export function parseSmallQuantity(v: unknown): number {
  const n = parseQuantity(v, 64);
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw new CodecError(`hex number ${n} is out of range`);
  return Number(n);
}

export function parseData(v: unknown): Uint8Array {
  const body = hexBody(expectString(v, 'hexutil.Bytes'));
  if (body.length % 2 !== 0) throw new CodecError('hex string of odd length');
  if (!HEX_DIGITS.test(body)) throw new CodecError('invalid hex string');
  return Uint8Array.from(Buffer.from(body, 'hex'));
}

/** Data of exactly `bytes` bytes; `goType` names it in the error as geth does. */
export function parseFixed(v: unknown, bytes: number, goType: string): Uint8Array {
  const s = expectString(v, goType);
  if (s.length === 2 + bytes * 2 && s.charCodeAt(0) === 48 && (s.charCodeAt(1) | 32) === 120) {
    // `0x` and the right length (an address or hash in almost every request): decoded straight
    // into the array returned
    const out = new Uint8Array(bytes);
    if (hexInto(s, 2, out)) return out;
  }
  const body = hexBody(s);
  if (!HEX_DIGITS.test(body)) throw new CodecError(`invalid hex string`);
  throw new CodecError(`hex string has length ${body.length}, want ${bytes * 2} for ${goType}`);
}

export const parseAddress = (v: unknown): Uint8Array => parseFixed(v, 20, 'common.Address');
export const parseHash = (v: unknown): Uint8Array => parseFixed(v, 32, 'common.Hash');

/** `0x`-prefixed lower-case hex of a non-negative integer, no leading zeros ("0x0" for zero). */
export function quantity(n: bigint | number): string {
  if (n < 0) throw new RangeError(`quantity ${n} is negative`);
  return '0x' + n.toString(16);
}

/** `0x`-prefixed lower-case hex of bytes ("0x" when empty). */
export function data(bytes: Uint8Array): string {
  return '0x' + toHex(bytes);
}

/** Lower-case, as geth returns addresses. */
export function address(bytes: Uint8Array): string {
  return '0x' + toHex(bytes);
}

/** A 32-byte hash; shorter values (an empty CometBFT hash) are left-padded with zeros. */
export function hash32(bytes: Uint8Array): string {
  const hex = toHex(bytes);
  return '0x' + (hex.length < 64 ? hex.padStart(64, '0') : hex);
}
