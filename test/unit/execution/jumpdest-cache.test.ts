import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CodeAnalyses, jumpdestCacheInstalled } from '../../../src/execution/jumpdest-cache.ts';

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
  // the same code read again (a later block, an eth_call) is another object with the same bytes
  const copy = Interpreter.prototype._getValidJumpDestinations.call(self, code.slice());
  assert.equal(copy, first, 'the same bytes in another object: reused');
  const other = Interpreter.prototype._getValidJumpDestinations.call(self, Uint8Array.of(0x5b, 0x00));
  assert.notEqual(other, first);
  assert.deepEqual([...other.jumps], [1, 0]);
  const otherEvm = { ...self, _evm: { _opcodeMap: evm._opcodeMap } };
  assert.notEqual(Interpreter.prototype._getValidJumpDestinations.call(otherEvm, code), first, 'per EVM');
});

test('code analyses are reused by bytes, never for other bytes, within a bounded size', () => {
  let runs = 0;
  const analyse = (code: Uint8Array) => ({ run: ++runs, first: code[0] });
  const cache = new CodeAnalyses<{ run: number; first: number }>(250);
  // 100 bytes with the same tail: the content hash reads only the length and the tail, so these collide
  const code = (first: number) => {
    const c = new Uint8Array(100).fill(7);
    c[0] = first;
    return c;
  };
  const a = cache.get(code(1), analyse, undefined);
  assert.equal(cache.get(code(1), analyse, undefined), a, 'equal bytes: the kept analysis');
  const b = cache.get(code(2), analyse, undefined);
  assert.notEqual(b, a, 'a colliding hash with other bytes is analysed');
  assert.equal(b.first, 2);
  assert.equal(cache.get(code(2), analyse, undefined), b);
  assert.equal(runs, 2);

  // the budget (250 code bytes) holds two 100-byte codes: a third evicts the least recently used
  const sized = (n: number, fill: number) => new Uint8Array(n).fill(fill);
  const x = cache.get(sized(100, 1), analyse, undefined);
  const y = cache.get(sized(100, 2), analyse, undefined);
  assert.equal(cache.get(sized(100, 1), analyse, undefined), x, 'x used again: y is now the oldest');
  cache.get(sized(100, 3), analyse, undefined);
  assert.equal(cache.get(sized(100, 1), analyse, undefined), x);
  assert.notEqual(cache.get(sized(100, 2), analyse, undefined), y, 'y was evicted and is analysed again');
  const big = sized(300, 9);
  const g = cache.get(big, analyse, undefined);
  assert.equal(cache.get(big, analyse, undefined), g, 'code over the budget is still reused by identity');
  assert.notEqual(cache.get(big.slice(), analyse, undefined), g, 'but not kept by its bytes');
});
