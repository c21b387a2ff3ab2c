/** Hand-assembled contracts for simulation tests, placed at an address with a state override. */

const hex = (n: number, bytes: number) => n.toString(16).padStart(bytes * 2, '0');

/** Code that writes `data` to memory and ends with RETURN (0xf3) or REVERT (0xfd). */
function ending(data: Uint8Array, op: 'f3' | 'fd'): string {
  let code = '';
  for (let i = 0; i < data.length; i += 32) {
    const chunk = Buffer.alloc(32);
    Buffer.from(data.subarray(i, i + 32)).copy(chunk);
    code += '7f' + chunk.toString('hex') + '61' + hex(i, 2) + '52'; // PUSH32 chunk PUSH2 i MSTORE
  }
  return '0x' + code + '61' + hex(data.length, 2) + '6000' + op; // PUSH2 len PUSH1 0 RETURN|REVERT
}

export const revertWith = (data: Uint8Array) => ending(data, 'fd');
export const returnWith = (data: Uint8Array) => ending(data, 'f3');

/** Returns NUMBER, TIMESTAMP, GASLIMIT, BASEFEE, COINBASE, GASPRICE as six words. */
export const BLOCK_PROBE =
  '0x' +
  ['43', '42', '45', '48', '41', '3a'].map((op, i) => op + '60' + hex(i * 32, 1) + '52').join('') +
  '60c06000f3';

/** Returns its own balance. */
export const SELF_BALANCE = '0x' + '47' + '600052' + '60206000f3';

/** CREATEs an empty contract and returns the new address (which depends on this account's nonce). */
export const CREATE_PROBE = '0x' + '600060006000f0' + '600052' + '60206000f3';

/** Loops forever (JUMPDEST PUSH1 0 JUMP): only gas or the deadline stops it. */
export const SPIN = '0x5b600056';

/** Returns SLOAD(0) and SLOAD(1). */
export const SLOAD_PROBE = '0x' + '600054600052' + '600154602052' + '60406000f3';

export function word(n: bigint): string {
  return n.toString(16).padStart(64, '0');
}

/** Panic(uint256) revert data. */
export function panicData(code: number): Uint8Array {
  return Buffer.from('4e487b71' + word(BigInt(code)), 'hex');
}
