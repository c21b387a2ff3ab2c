/**
 * CALLDATALOAD, MLOAD, MSTORE and SLOAD without ethereumjs's word conversions: its handlers turn a
 * 256-bit stack word into bytes through a hex string and then left-pad it by spreading both parts
 * into a new array (`setLengthLeft(bigIntToBytes(word), 32)`), and turn bytes into a word through hex
 * again. Memory
 * words are the most common operands of Solidity code, and for a cheap eth_call those conversions
 * cost about a twentieth of the call. These handlers do the same reads and writes with four 64-bit
 * lanes instead; gas (the opcodes' dynamic gas functions) and every other opcode stay stock.
 *
 * The handlers are put in the EVM's opcode table entries, which its code analysis refers to, so an
 * EVM must be given them before it runs. The table is private to ethereumjs (the pinned 10.1.x): if
 * it is not where expected, nothing is replaced and execution is unchanged.
 */
import type { EVM } from '@ethereumjs/evm';

interface RunState {
  stack: { pop(): bigint; popN(n: number): bigint[]; push(v: bigint): void };
  interpreter: {
    storageLoad(key: Uint8Array): Promise<Uint8Array>;
    getCallData(): Uint8Array;
    getCallDataSize(): bigint;
  };
  memory: {
    read(offset: number, size: number, avoidCopy?: boolean): Uint8Array;
    write(o: number, s: number, v: Uint8Array): void;
  };
}
type Entry = { opcodeInfo?: { name?: string }; opHandler?: unknown };

const SHIFT64 = 64n;
const SHIFT128 = 128n;
const SHIFT192 = 192n;

/** The 32 big-endian bytes of a stack word (0 <= word < 2^256). */
export function wordToBytes(word: bigint, out: Uint8Array = new Uint8Array(32)): Uint8Array {
  const view = new DataView(out.buffer, out.byteOffset, 32);
  // setBigUint64 keeps the low 64 bits of what it is given
  view.setBigUint64(0, word >> SHIFT192);
  view.setBigUint64(8, word >> SHIFT128);
  view.setBigUint64(16, word >> SHIFT64);
  view.setBigUint64(24, word);
  return out;
}

/** The word of 32 big-endian bytes. */
export function bytesToWord(b: Uint8Array): bigint {
  const view = new DataView(b.buffer, b.byteOffset, 32);
  return (
    (view.getBigUint64(0) << SHIFT192) |
    (view.getBigUint64(8) << SHIFT128) |
    (view.getBigUint64(16) << SHIFT64) |
    view.getBigUint64(24)
  );
}

/** Memory copies what MSTORE writes, so one scratch word serves every store (and every CALLDATALOAD). */
const scratch = new Uint8Array(32);

function calldataload(runState: RunState): void {
  const pos = runState.stack.pop();
  if (pos > runState.interpreter.getCallDataSize()) {
    runState.stack.push(0n);
    return;
  }
  // the 32 bytes at pos, zero past the end of the call data
  const i = Number(pos);
  const loaded = runState.interpreter.getCallData().subarray(i, i + 32);
  if (loaded.length === 32) {
    runState.stack.push(bytesToWord(loaded));
    return;
  }
  scratch.fill(0);
  scratch.set(loaded);
  runState.stack.push(bytesToWord(scratch));
}

function mload(runState: RunState): void {
  const pos = runState.stack.pop();
  runState.stack.push(bytesToWord(runState.memory.read(Number(pos), 32, true)));
}

function mstore(runState: RunState): void {
  const [offset, word] = runState.stack.popN(2);
  runState.memory.write(Number(offset), 32, wordToBytes(word, scratch));
}

async function sload(runState: RunState): Promise<void> {
  // a fresh key: the state manager may keep it
  const key = wordToBytes(runState.stack.pop());
  const value = await runState.interpreter.storageLoad(key);
  // stored values are minimal big-endian bytes, 0 to 32 of them
  runState.stack.push(value.length === 32 ? bytesToWord(value) : value.length ? toBigInt(value) : 0n);
}

function toBigInt(b: Uint8Array): bigint {
  let v = 0n;
  for (const byte of b) v = (v << 8n) | BigInt(byte);
  return v;
}

const HANDLERS: [number, string, unknown][] = [
  [0x35, 'CALLDATALOAD', calldataload],
  [0x51, 'MLOAD', mload],
  [0x52, 'MSTORE', mstore],
  [0x54, 'SLOAD', sload],
];

/** Puts the handlers in `evm`'s opcode table; false (and nothing changed) if the table is not as expected. */
export function installWordOpcodes(evm: EVM): boolean {
  const map = (evm as unknown as { _opcodeMap?: Entry[] })._opcodeMap;
  if (!Array.isArray(map)) return false;
  for (const [code, name] of HANDLERS) {
    const e = map[code];
    if (e?.opcodeInfo?.name !== name || typeof e.opHandler !== 'function') return false;
  }
  for (const [code, , handler] of HANDLERS) map[code].opHandler = handler;
  return true;
}
