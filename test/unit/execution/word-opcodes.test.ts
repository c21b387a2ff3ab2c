/**
 * execution/word-opcodes.ts: the CALLDATALOAD/MLOAD/MSTORE/SLOAD handlers give ethereumjs's results (return
 * data, gas, stored words) and its word conversions, on the pinned ethereumjs.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEVM } from '@ethereumjs/evm';
import {
  Account,
  bigIntToBytes,
  bytesToBigInt,
  createAddressFromString,
  setLengthLeft,
} from '@ethereumjs/util';
import { bytesToWord, installWordOpcodes, wordToBytes } from '../../../src/execution/word-opcodes.ts';

const WORDS = [
  0n,
  1n,
  0xffn,
  2n ** 64n - 1n,
  2n ** 64n,
  2n ** 128n + 5n,
  2n ** 255n,
  2n ** 256n - 1n,
  0x0123456789abcdeffedcba98765432100123456789abcdeffedcba9876543210n,
];

test('word conversions match ethereumjs', () => {
  for (const w of WORDS) {
    const stock = setLengthLeft(bigIntToBytes(w), 32);
    assert.deepEqual(wordToBytes(w), stock, w.toString(16));
    assert.equal(bytesToWord(stock), bytesToBigInt(stock));
    // a view inside a larger buffer, as memory reads give
    const big = new Uint8Array(40);
    big.set(stock, 5);
    assert.equal(bytesToWord(big.subarray(5, 37)), w);
  }
});

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const push32 = (w: bigint) => '7f' + hex(wordToBytes(w));

/** Stores words at aligned and unaligned offsets, reads them back, stores and loads slots. */
function program(): Uint8Array {
  let code = '';
  WORDS.forEach((w, i) => {
    code += push32(w) + '61' + (i * 32 + 3).toString(16).padStart(4, '0') + '52'; // MSTORE at 32i+3
    code += push32(w) + '60' + i.toString(16).padStart(2, '0') + '55'; // SSTORE slot i
  });
  // MLOAD at 0x13 (spanning two words), MSTORE the result at 0x200; SLOAD slots 2 and 0x40 (empty)
  code += '6013' + '51' + '610200' + '52';
  code += '6002' + '54' + '610220' + '52';
  code += '6040' + '54' + '610240' + '52';
  // CALLDATALOAD (40 bytes of call data) at 0, 20 (partly past the end), 40 (the end), 100 and 2^255
  [0, 20, 40, 100].forEach((at, i) => {
    code +=
      '60' +
      at.toString(16).padStart(2, '0') +
      '35' +
      '61' +
      (0x260 + 32 * i).toString(16).padStart(4, '0') +
      '52';
  });
  code += push32(2n ** 255n) + '35' + '6102e0' + '52';
  code += '610300' + '6000' + 'f3'; // RETURN memory[0, 0x300)
  return Uint8Array.from(Buffer.from(code, 'hex'));
}

test('CALLDATALOAD, MLOAD, MSTORE and SLOAD run as ethereumjs runs them', async () => {
  const run = async (fast: boolean) => {
    const evm = await createEVM();
    if (fast) assert.equal(installWordOpcodes(evm), true);
    const address = createAddressFromString('0x' + '11'.repeat(20));
    await evm.stateManager.putAccount(address, new Account(1n));
    const data = Uint8Array.from({ length: 40 }, (_, i) => 0xa0 + i);
    const res = await evm.runCode({ code: program(), data, gasLimit: 10_000_000n, to: address });
    const slots = [];
    for (let i = 0; i < WORDS.length; i++)
      slots.push(hex(await evm.stateManager.getStorage(address, setLengthLeft(Uint8Array.of(i), 32))));
    return { ret: hex(res.returnValue), gas: res.executionGasUsed, error: res.exceptionError, slots };
  };
  const stock = await run(false);
  assert.equal(stock.error, undefined);
  assert.deepEqual(await run(true), stock);
});

test('an opcode table that is not as expected is left alone', () => {
  const entry = { opcodeInfo: { name: 'MSTORE' }, opHandler: () => {} };
  const evm = { _opcodeMap: { 0x52: entry } };
  assert.equal(installWordOpcodes(evm as never), false);
  assert.equal(installWordOpcodes({} as never), false);
});
