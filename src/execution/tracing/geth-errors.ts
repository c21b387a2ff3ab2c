/**
 * ethereumjs's execution errors in geth's words (core/vm/errors.go), since traces print geth's text:
 * "execution reverted", "write protection", "invalid jump destination", ...
 */
import { abiDecodeRevert } from './revert-reason.ts';

const MAP: Record<string, string> = {
  'out of gas': 'out of gas',
  'code store out of gas': 'contract creation code storage out of gas',
  'code size to deposit exceeds maximum code size': 'max code size exceeded',
  'invalid JUMP': 'invalid jump destination',
  revert: 'execution reverted',
  'static state change': 'write protection',
  'create collision': 'contract address collision',
  'value out of range': 'return data out of bounds',
  'insufficient balance': 'insufficient balance for transfer',
  'invalid bytecode deployed': 'invalid code: must not begin with 0xef',
  'initcode exceeds max initcode size': 'max initcode size exceeded',
  'value overflow': 'gas uint64 overflow',
};

/** `opName`/`stackLen` of the failing opcode, when known, complete geth's parameterised messages. */
export function gethError(ethjsError: string, op?: { code: number; name: string; stackLen: number }): string {
  if (ethjsError === 'invalid opcode') {
    if (!op) return 'invalid opcode';
    return `invalid opcode: ${op.name}`;
  }
  if (ethjsError === 'stack underflow' && op) {
    return `stack underflow (${op.stackLen} <=> ${STACK_IN[op.code] ?? op.stackLen + 1})`;
  }
  if (ethjsError === 'stack overflow' && op) return `stack limit reached 1024 (${1024 - 1})`;
  return MAP[ethjsError] ?? ethjsError;
}

/** Errors that geth reports on the struct log of the opcode that failed before it ran. */
export function isPreExecutionError(ethjsError: string): boolean {
  return ethjsError === 'out of gas' || ethjsError === 'stack underflow' || ethjsError === 'stack overflow';
}

/** Stack inputs of the opcodes that can underflow in practice (geth's minStack). */
const STACK_IN: Record<number, number> = (() => {
  const t: Record<number, number> = {};
  const set = (from: number, to: number, n: number) => {
    for (let c = from; c <= to; c++) t[c] = n;
  };
  set(0x01, 0x07, 2);
  set(0x08, 0x09, 3);
  set(0x0a, 0x0b, 2);
  set(0x10, 0x14, 2);
  t[0x15] = 1;
  set(0x16, 0x18, 2);
  t[0x19] = 1;
  set(0x1a, 0x1d, 2);
  t[0x20] = 2;
  t[0x31] = 1;
  t[0x35] = 1;
  t[0x37] = 3;
  t[0x39] = 3;
  t[0x3b] = 1;
  t[0x3c] = 4;
  t[0x3e] = 3;
  t[0x3f] = 1;
  t[0x40] = 1;
  t[0x49] = 1;
  t[0x50] = 1;
  t[0x51] = 1;
  set(0x52, 0x53, 2);
  t[0x54] = 1;
  t[0x55] = 2;
  t[0x56] = 1;
  t[0x57] = 2;
  t[0x5c] = 1;
  t[0x5d] = 2;
  t[0x5e] = 3;
  for (let i = 0; i < 16; i++) t[0x80 + i] = i + 1;
  for (let i = 0; i < 16; i++) t[0x90 + i] = i + 2;
  for (let i = 0; i < 5; i++) t[0xa0 + i] = i + 2;
  t[0xf0] = 3;
  t[0xf1] = 7;
  t[0xf2] = 7;
  t[0xf3] = 2;
  t[0xf4] = 6;
  t[0xf5] = 4;
  t[0xfa] = 6;
  t[0xfd] = 2;
  t[0xff] = 1;
  return t;
})();

/** geth's flatCallTracer `convertParityErrors` table. */
export function parityError(gethMessage: string): string {
  const exact: Record<string, string> = {
    'contract creation code storage out of gas': 'Out of gas',
    'out of gas': 'Out of gas',
    'gas uint64 overflow': 'Out of gas',
    'max code size exceeded': 'Out of gas',
    'invalid jump destination': 'Bad jump destination',
    'execution reverted': 'Reverted',
    'return data out of bounds': 'Out of bounds',
    'stack limit reached 1024 (1023)': 'Out of stack',
    'precompiled failed': 'Built-in failed',
    'invalid input length': 'Built-in failed',
  };
  if (exact[gethMessage]) return exact[gethMessage];
  if (gethMessage.startsWith('invalid opcode:')) return 'Bad instruction';
  if (gethMessage.startsWith('stack underflow')) return 'Stack underflow';
  return gethMessage;
}

export { abiDecodeRevert };
