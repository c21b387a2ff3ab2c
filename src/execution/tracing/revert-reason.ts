/** geth's abi.UnpackRevert: Error(string) and Panic(uint256) revert payloads as text. */
import { toHex } from '../../primitives/bytes.ts';

const PANICS: Record<string, string> = {
  '0': 'generic panic',
  '1': 'assert(false)',
  '17': 'arithmetic underflow or overflow',
  '18': 'division or modulo by zero',
  '33': 'enum overflow',
  '34': 'invalid encoded storage byte array accessed',
  '49': 'out-of-bounds array access; popping on an empty array',
  '50': 'out-of-bounds access of an array or bytesN',
  '65': 'out of memory',
  '81': 'uninitialized function',
};

const big = (b: Uint8Array): bigint => (b.length === 0 ? 0n : BigInt('0x' + toHex(b)));

/** The reason text, or undefined when the payload is neither form (geth then prints none). */
export function abiDecodeRevert(data: Uint8Array): string | undefined {
  if (data.length < 4) return undefined;
  const selector = toHex(data.subarray(0, 4));
  const body = data.subarray(4);
  if (selector === '08c379a0') {
    if (body.length < 64) return undefined;
    const offset = big(body.subarray(0, 32));
    if (offset + 32n > BigInt(body.length)) return undefined;
    const o = Number(offset);
    const len = big(body.subarray(o, o + 32));
    if (BigInt(o + 32) + len > BigInt(body.length)) return undefined;
    return new TextDecoder().decode(body.subarray(o + 32, o + 32 + Number(len)));
  }
  if (selector === '4e487b71') {
    if (body.length < 32) return undefined;
    const code = big(body.subarray(0, 32));
    return PANICS[code.toString()] ?? `unknown panic code: 0x${code.toString(16)}`;
  }
  return undefined;
}
