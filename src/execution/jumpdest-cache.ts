/**
 * ethereumjs analyses a contract's code (valid JUMPDESTs, PUSH values, the opcode of every byte) at
 * the start of every call into it, allocating arrays the size of the code each time: for a block of
 * ERC20 transfers that was ~4% of the CPU and ~16% of all allocations, the same analysis of the same
 * code a thousand times. This keeps the result per EVM and reuses it.
 *
 * Sound because the analysis is a pure function of the code and the EVM's opcode table (fixed for
 * an EVM instance), and the interpreter only reads what it returns. Within a block every call into a
 * contract gets the same code object (the block's StateOverlay keeps its reads of committed state,
 * state/overlay.ts), found by identity. A later block, or an eth_call over a reader that does not
 * keep its reads, reads the same code into a new object: that is found by its bytes (a hash of its
 * length and tail, then a full comparison), so a contract is analysed once, not once per block or
 * call. What is kept by bytes is bounded per EVM by the code bytes it covers, least recently used
 * going first.
 *
 * The method is private to ethereumjs, so this is version-bound (the pinned 10.1.x). If the module or
 * method is not where expected, nothing is patched and execution is unchanged.
 */
type Analysis = unknown;
type InterpreterLike = { _evm: object; _getValidJumpDestinations(code: Uint8Array): Analysis };

/** Code bytes whose analyses one EVM keeps by content (an analysis takes ~10 bytes per code byte). */
const CONTENT_BUDGET_BYTES = 1 << 20;

/** How much of the code's end the content hash reads: Solidity ends code with its metadata hash. */
const TAIL_BYTES = 64;

/** The analyses of one EVM, by code object and by code bytes. */
export class CodeAnalyses<A> {
  private readonly byObject = new WeakMap<Uint8Array, A>();
  /** By content hash, in least-recently-used order (a Map iterates in insertion order). */
  private readonly byContent = new Map<number, { code: Buffer; analysis: A }>();
  private contentBytes = 0;
  private readonly budget: number;

  constructor(budgetBytes = CONTENT_BUDGET_BYTES) {
    this.budget = budgetBytes;
  }

  /** `analyse` is called only for code not seen before (the hot path, a code object seen, allocates nothing). */
  get<T>(code: Uint8Array, analyse: (this: T, code: Uint8Array) => A, self: T): A {
    const known = this.byObject.get(code);
    if (known !== undefined) return known;
    const key = contentHash(code);
    const kept = this.byContent.get(key);
    let analysis: A;
    if (kept !== undefined && kept.code.equals(code)) {
      analysis = kept.analysis;
      this.byContent.delete(key);
      this.byContent.set(key, kept);
    } else {
      analysis = analyse.call(self, code);
      this.keep(key, code, analysis);
    }
    this.byObject.set(code, analysis);
    return analysis;
  }

  private keep(key: number, code: Uint8Array, analysis: A): void {
    if (code.length > this.budget) return;
    const replaced = this.byContent.get(key);
    if (replaced !== undefined) {
      this.byContent.delete(key);
      this.contentBytes -= replaced.code.length;
    }
    // a copy: the caller's array may be reused, and a hit must compare against what was analysed
    this.byContent.set(key, { code: Buffer.from(code), analysis });
    this.contentBytes += code.length;
    for (const [oldest, entry] of this.byContent) {
      if (this.contentBytes <= this.budget) break;
      this.byContent.delete(oldest);
      this.contentBytes -= entry.code.length;
    }
  }
}

/** FNV-1a over the length and the last TAIL_BYTES bytes: cheap, and collisions are compared away. */
function contentHash(code: Uint8Array): number {
  let h = Math.imul(0x811c9dc5 ^ code.length, 0x01000193);
  for (let i = Math.max(0, code.length - TAIL_BYTES); i < code.length; i++)
    h = Math.imul(h ^ code[i], 0x01000193);
  return h >>> 0;
}

const byEvm = new WeakMap<object, CodeAnalyses<Analysis>>();

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
      let analyses = byEvm.get(this._evm);
      if (analyses === undefined) byEvm.set(this._evm, (analyses = new CodeAnalyses()));
      return analyses.get(code, analyse, this);
    };
    jumpdestCacheInstalled = true;
  }
} catch {
  // not patched: ethereumjs analyses every call itself, as it always did
}
