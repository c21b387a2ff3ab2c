/** geth's JSON spellings of numbers and bytes, as the tracers print them. */
import { toHex } from '../../primitives/bytes.ts';

/** hexutil.Uint64 / hexutil.Big / uint256.Hex: minimal `0x` quantity ("0x0" for zero). */
export const quantity = (v: bigint | number): string => '0x' + v.toString(16);

/** hexutil.Bytes: `0x` + lowercase hex ("0x" when empty). */
export const hexBytes = (b: Uint8Array): string => '0x' + toHex(b);

/** common.Address / common.Hash text form: `0x` + lowercase hex. */
export const hexAddress = hexBytes;

/** fmt.Sprintf("%x", …): lowercase hex without a prefix. */
export const bareHex = (b: Uint8Array): string => toHex(b);

export function word(v: bigint): Uint8Array {
  const out = new Uint8Array(32);
  let x = v;
  for (let i = 31; i >= 0 && x > 0n; i--) {
    out[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  return out;
}

/** The low 20 bytes of a stack word (geth's uint256.Bytes20). */
export const addressOfWord = (v: bigint): Uint8Array => word(v).subarray(12);

export function pad32(b: Uint8Array): Uint8Array {
  if (b.length === 32) return b;
  const out = new Uint8Array(32);
  out.set(b.subarray(Math.max(0, b.length - 32)), 32 - Math.min(32, b.length));
  return out;
}

/** Far beyond the memory a block's gas can expand to. */
const MAX_SLICE = 1n << 26n;

/** Reads `size` bytes of `memory` from `offset`, zero-filled past its end (as memory expansion would). */
export function memorySlice(memory: Uint8Array, offset: bigint, size: bigint): Uint8Array {
  // a range no gas could pay for belongs to an opcode that fails: nothing to read
  if (size > MAX_SLICE || offset > MAX_SLICE) return new Uint8Array(0);
  const n = Number(size);
  const out = new Uint8Array(n);
  if (n === 0) return out;
  const start = Number(offset);
  if (start < memory.length) out.set(memory.subarray(start, Math.min(memory.length, start + n)));
  return out;
}

export const addrKey = (a: Uint8Array): string => toHex(a);
