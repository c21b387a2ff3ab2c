import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jumpdestCacheInstalled } from '../../../src/execution/jumpdest-cache.ts';

test('the code-analysis cache is installed on the pinned ethereumjs interpreter', async () => {
  // If an ethereumjs upgrade moves the interpreter or its analysis method, this fails rather than
  // the chain silently losing the cache.
  assert.equal(jumpdestCacheInstalled, true);
  const entry = import.meta.resolve('@ethereumjs/evm');
  const { Interpreter } = await import(new URL('./interpreter.js', entry).href);
  const evm = { _opcodeMap: new Proxy({}, { get: (_, op) => ({ opcodeInfo: { code: Number(op) } }) }) };
  const self = {
    _evm: evm,
    common: { isActivatedEIP: () => false },
    lookupOpInfo: (op: number) => evm._opcodeMap[op as never],
  };
  // PUSH1 0x04 JUMP JUMPDEST STOP
  const code = Uint8Array.of(0x60, 0x04, 0x56, 0x00, 0x5b, 0x00);
  const first = Interpreter.prototype._getValidJumpDestinations.call(self, code);
  assert.deepEqual([...first.jumps], [0, 0, 0, 0, 1, 0]);
  assert.equal(first.pushes[1], 4n);
  assert.equal(
    Interpreter.prototype._getValidJumpDestinations.call(self, code),
    first,
    'same code object: reused',
  );
  const copy = Interpreter.prototype._getValidJumpDestinations.call(self, code.slice());
  assert.notEqual(copy, first, 'another code object is analysed on its own');
  assert.deepEqual(copy.jumps, first.jumps);
  const otherEvm = { ...self, _evm: { _opcodeMap: evm._opcodeMap } };
  assert.notEqual(Interpreter.prototype._getValidJumpDestinations.call(otherEvm, code), first, 'per EVM');
});
