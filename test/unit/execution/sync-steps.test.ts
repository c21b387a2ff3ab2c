/**
 * execution/sync-steps.ts: an EVM registered for synchronous steps gives ethereumjs's results —
 * return data, gas, halts (STOP, REVERT, invalid opcode, out of gas, stack underflow), nested calls
 * and storage — and a tracer's `step` events still see every step.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEVM } from '@ethereumjs/evm';
import { Account, createAddressFromString } from '@ethereumjs/util';
import { syncStepsInstalled, useSyncSteps } from '../../../src/execution/sync-steps.ts';

const CALLEE = createAddressFromString('0x' + '22'.repeat(20));
const SELF = createAddressFromString('0x' + '11'.repeat(20));
const code = (h: string) => Uint8Array.from(Buffer.from(h, 'hex'));

const PROGRAMS: Record<string, string> = {
  // a loop of ten jumps that stores and returns its counter
  loop: '600060005b808201915060010180600a1160045760005561' + '0000' + '5460005260206000f3',
  // CALL the callee (returns 42), return its output
  call: '60206000600060006000' + '73' + '22'.repeat(20) + '5af1506020' + '6000f3',
  revert: '6001600052' + '60206000fd',
  invalid: '6001fe',
  outOfGas: '5b600056',
  underflow: '01',
  stop: '600100',
  // MSTORE, MSTORE8 and MLOAD growing memory; an expansion past the gas left
  memory: '602a610400526007610433536104205160005260206000f3',
  memoryOutOfGas: '602a62ffffff52',
  mloadUnderflow: '51',
  // KECCAK256 of written memory and of memory it grows; RETURN and REVERT growing memory
  keccak: '604561010052' + '60506100f020600052' + '602161040020602052' + '60406000f3',
  keccakOutOfGas: '62ffffff600020',
  returnGrows: '6020610500f3',
  revertGrows: '6020610500fd',
  // BLOCKHASH and SELFBALANCE: static gas, asynchronous handlers
  asyncStatic: '600040' + '600052' + '47' + '602052' + '60406000f3',
};

async function run(name: string, sync: boolean, steps?: number[]) {
  const evm = await createEVM();
  if (sync) assert.equal(useSyncSteps(evm), true);
  if (steps) evm.events!.on('step', (s: { pc: number }) => void steps.push(s.pc));
  await evm.stateManager.putAccount(SELF, new Account(1n));
  await evm.stateManager.putAccount(CALLEE, new Account(1n));
  await evm.stateManager.putCode(CALLEE, code('602a60005260206000f3'));
  const res = await evm.runCode({ code: code(PROGRAMS[name]), gasLimit: 100_000n, to: SELF });
  return {
    ret: Buffer.from(res.returnValue).toString('hex'),
    gas: res.executionGasUsed,
    error: res.exceptionError?.error,
  };
}

test('synchronous steps give ethereumjs results', async () => {
  assert.equal(syncStepsInstalled, true);
  for (const name of Object.keys(PROGRAMS)) {
    const stock = await run(name, false);
    assert.deepEqual(await run(name, true), stock, name);
  }
  assert.equal((await run('call', true)).ret, (42).toString(16).padStart(64, '0'));
  assert.equal((await run('outOfGas', true)).error, 'out of gas');
  assert.equal((await run('memoryOutOfGas', true)).error, 'out of gas');
  assert.equal((await run('keccakOutOfGas', true)).error, 'out of gas');
  assert.equal((await run('revertGrows', true)).error, 'revert');
  // MSTORE8 put 7 at 0x433, the 20th byte of the word MLOAD read at 0x420
  assert.equal((await run('memory', true)).ret, '00'.repeat(19) + '07' + '00'.repeat(12));
});

test('a step listener sees every step of a registered EVM', async () => {
  const [stock, sync] = [[], []] as number[][];
  await run('loop', false, stock);
  await run('loop', true, sync);
  assert.ok(stock.length > 50);
  assert.deepEqual(sync, stock);
});
