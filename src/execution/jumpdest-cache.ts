/**
 * ethereumjs analyses a contract's code (valid JUMPDESTs, PUSH values, the opcode of every byte) at
 * the start of every call into it, allocating arrays the size of the code each time: for a block of
 * ERC20 transfers that was ~4% of the CPU and ~16% of all allocations, the same analysis of the same
 * code a thousand times. This keeps the result per (EVM, code bytes object) and reuses it.
 *
 * Sound because the analysis is a pure function of the code and the EVM's opcode table (fixed for
 * an EVM instance), and the interpreter only reads what it returns. Reuse needs the same code
 * object: the block's StateOverlay keeps its reads of committed state (state/overlay.ts), so every
 * call into a contract within a block gets the same bytes. A fresh object (new code, a simulation
 * over a non-caching reader) is simply analysed as before.
 *
 * The method is private to ethereumjs, so this is version-bound (the pinned 10.1.x). If the module or
 * method is not where expected, nothing is patched and execution is unchanged.
 */
type Analysis = unknown;
type InterpreterLike = { _evm: object; _getValidJumpDestinations(code: Uint8Array): Analysis };

const byEvm = new WeakMap<object, WeakMap<Uint8Array, Analysis>>();

/** Whether the cache is installed (tests check that it is, so an upgrade that moves it is noticed). */
export let jumpdestCacheInstalled = false;

try {
  const entry = import.meta.resolve('@ethereumjs/evm');
  const mod = (await import(new URL('./interpreter.js', entry).href)) as {
    Interpreter?: { prototype: InterpreterLike };
  };
  const proto = mod.Interpreter?.prototype;
  const analyse = proto?._getValidJumpDestinations;
  if (proto && typeof analyse === 'function') {
    proto._getValidJumpDestinations = function (this: InterpreterLike, code: Uint8Array): Analysis {
      let perCode = byEvm.get(this._evm);
      if (perCode === undefined) byEvm.set(this._evm, (perCode = new WeakMap()));
      let a = perCode.get(code);
      if (a === undefined) {
        a = analyse.call(this, code);
        perCode.set(code, a);
      }
      return a;
    };
    jumpdestCacheInstalled = true;
  }
} catch {
  // not patched: ethereumjs analyses every call itself, as it always did
}
