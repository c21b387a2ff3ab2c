/**
 * The optional native simulator: revm behind N-API (native/evm-sim, built by
 * `npm run build:native-sim` into a git-ignored file). It is loaded at most once, on first use; when
 * the file is absent or does not load, `nativeSimulator()` says why and simulations stay on the JS
 * EVM. Block execution never uses it.
 *
 * A call's message and block context cross as two packed byte arrays (the layouts are the crate's
 * TX_LEN/BLOCK_LEN), and every state read is a synchronous callback into a `NativeHost`.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the build script puts the addon and where it is loaded from. */
export const NATIVE_SIM_PATH = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  'native',
  'evm-sim',
  'build',
  'evm-sim.node',
);

/** The state reads of one call, each answered synchronously (or by throwing; the call is then abandoned). */
export interface NativeHost {
  /** balance[32] nonce[8] codeHash[32], big-endian; undefined: no account */
  account(address: Uint8Array): Uint8Array | undefined;
  code(address: Uint8Array): Uint8Array;
  /** the slot's value, up to 32 bytes, big-endian */
  storage(address: Uint8Array, slot: Uint8Array): Uint8Array;
  /** `height`: 8 bytes, big-endian */
  blockHash(height: Uint8Array): Uint8Array | undefined;
}

export interface NativeCallOutput {
  /** `invalid`: the message could not run at all; `slow`: given up after the time slice (8 ms), for the JS EVM to run */
  status: (typeof STATUS)[number];
  output: Uint8Array;
  /** before refunds, intrinsic gas included */
  gasUsed: bigint;
  /** the halt reason (revm's name) or why the message could not run */
  error?: string;
  /** state callbacks made */
  reads: number;
}

/** The crate's ABI_VERSION this binding speaks. */
const ABI_VERSION = 3;

/** The addon's own signatures (native/evm-sim/src/lib.rs). */
interface Addon {
  abiVersion(): number;
  call(
    tx: Uint8Array,
    block: Uint8Array,
    data: Uint8Array,
    scratch: Uint8Array,
    account: () => Uint8Array | undefined,
    code: () => Uint8Array,
    storage: () => Uint8Array,
    blockHash: () => Uint8Array | undefined,
  ): Uint8Array | string;
  execute(
    tx: Uint8Array,
    data: Uint8Array,
    lists: Uint8Array,
    block: Uint8Array,
    collect: boolean,
    scratch: Uint8Array,
    account: () => Uint8Array | undefined,
    code: () => Uint8Array,
    storage: () => Uint8Array,
    blockHash: () => Uint8Array | undefined,
  ): Uint8Array | string;
}

export interface NativeMessage {
  from: Uint8Array;
  /** undefined: a contract creation */
  to?: Uint8Array;
  value: bigint;
  gasLimit: bigint;
  gasPrice: bigint;
  data: Uint8Array;
}

export interface NativeBlock {
  number: bigint;
  timestamp: bigint;
  coinbase: Uint8Array;
  baseFee: bigint;
  gasLimit: bigint;
  prevRandao: Uint8Array;
  chainId: bigint;
  /** `cancun` for the Ethereum state tests' expected post-states only (block execution, not `call`) */
  spec: 'prague' | 'osaka' | 'cancun';
}

const STATUS = ['success', 'revert', 'halt', 'invalid', 'slow'] as const;

/**
 * revm's halt reasons (their Debug names) that ethereumjs reports with one fixed message, and that
 * message. A halt not listed (a precompile's failure, an invalid operand, ...) has no known twin:
 * such a call is answered by the JS EVM instead.
 */
// (an invalid jump is not here: ethereumjs names the code hash, address and pc in its message)
export const JS_HALT_MESSAGES: Readonly<Record<string, string>> = {
  'OutOfGas(Basic)': 'out of gas',
  'OutOfGas(Memory)': 'out of gas',
  'OutOfGas(Precompile)': 'out of gas',
  OpcodeNotFound: 'invalid opcode',
  InvalidFEOpcode: 'invalid opcode',
  StackUnderflow: 'stack underflow',
  StackOverflow: 'stack overflow',
};

export class NativeSimulator {
  private readonly addon: Addon;
  /**
   * Arguments of the callbacks and the outcome of a call cross here rather than as N-API values (a
   * Buffer made on the native side costs more than the read it carries). Backed by an ArrayBuffer,
   * so its bytes stay put while the addon holds their address.
   */
  private readonly scratch = new Uint8Array(new ArrayBuffer(64));
  private readonly view = new DataView(this.scratch.buffer);
  /** The host of the call running now; the callbacks below read through it. */
  private host: NativeHost | undefined;
  private readonly account = () => this.host!.account(this.scratch.slice(0, 20));
  private readonly code = () => this.host!.code(this.scratch.slice(0, 20));
  private readonly storage = () => this.host!.storage(this.scratch.slice(0, 20), this.scratch.slice(20, 52));
  private readonly blockHash = () => this.host!.blockHash(this.scratch.slice(0, 8));

  constructor(addon: Addon) {
    this.addon = addon;
  }

  /** Runs `msg` over `host`'s state and undoes it; a callback's exception is rethrown as is. */
  call(msg: NativeMessage, block: Uint8Array, host: NativeHost): NativeCallOutput {
    const tx = new Uint8Array(97);
    const v = new DataView(tx.buffer);
    tx.set(msg.from, 0);
    if (msg.to) {
      tx[20] = 1;
      tx.set(msg.to, 21);
    }
    putUint(v, 41, 32, msg.value);
    putUint(v, 73, 8, msg.gasLimit);
    putUint(v, 81, 16, msg.gasPrice);
    const outer = this.host;
    this.host = host;
    try {
      const answer = this.addon.call(
        tx,
        block,
        msg.data,
        this.scratch,
        this.account,
        this.code,
        this.storage,
        this.blockHash,
      );
      const status = STATUS[this.scratch[0]];
      const reads = this.view.getUint32(4, true);
      const gasUsed = this.view.getBigUint64(8, true);
      return typeof answer === 'string'
        ? { status, output: new Uint8Array(0), gasUsed, error: answer, reads }
        : { status, output: answer, gasUsed, reads };
    } finally {
      this.host = outer;
    }
  }

  /**
   * Runs a block's transaction over `host`'s state without applying it: the packed changes (the
   * crate's `execute` layout), or revm's reason when the transaction cannot be included.
   */
  execute(tx: NativeTx, block: Uint8Array, collect: boolean, host: NativeHost): Uint8Array | string {
    const outer = this.host;
    this.host = host;
    try {
      return this.addon.execute(
        tx.header,
        tx.data,
        tx.lists,
        block,
        collect,
        this.scratch,
        this.account,
        this.code,
        this.storage,
        this.blockHash,
      );
    } finally {
      this.host = outer;
    }
  }
}

/**
 * A block transaction for `NativeSimulator.execute`: the crate's EXEC_TX_LEN header, the data, and
 * the access and authorization lists packed as its `read_lists` reads them.
 */
export interface NativeTx {
  header: Uint8Array;
  data: Uint8Array;
  lists: Uint8Array;
}

/** The block context packed for `NativeSimulator.call` (one per block context; calls may share it). */
export function packBlock(b: NativeBlock): Uint8Array {
  const out = new Uint8Array(93);
  const v = new DataView(out.buffer);
  putUint(v, 0, 8, b.number);
  putUint(v, 8, 8, b.timestamp);
  out.set(b.coinbase, 16);
  putUint(v, 36, 8, b.baseFee);
  putUint(v, 44, 8, b.gasLimit);
  out.set(b.prevRandao, 52);
  putUint(v, 84, 8, b.chainId);
  out[92] = b.spec === 'prague' ? 0 : b.spec === 'osaka' ? 1 : 2;
  return out;
}

/** An account as `NativeHost.account` answers it. */
export function packAccount(balance: bigint, nonce: bigint, codeHash: Uint8Array): Uint8Array {
  const out = new Uint8Array(72);
  const v = new DataView(out.buffer);
  putUint(v, 0, 32, balance);
  putUint(v, 32, 8, nonce);
  out.set(codeHash, 40);
  return out;
}

/** Writes `n` big-endian into `len` bytes (a multiple of 8) at `at`; it must fit. */
export function putUint(v: DataView, at: number, len: number, n: bigint): void {
  if (n < 0n || n >> BigInt(len * 8) !== 0n) throw new RangeError(`${n} does not fit in ${len} bytes`);
  for (let i = len - 8; i >= 0; i -= 8) {
    v.setBigUint64(at + i, BigInt.asUintN(64, n));
    n >>= 64n;
  }
}

let loaded: NativeSimulator | string | undefined;

/** The native simulator, or why there is none (not built, or it does not load here). */
export function nativeSimulator(): NativeSimulator | string {
  if (loaded === undefined) {
    try {
      const addon = createRequire(import.meta.url)(NATIVE_SIM_PATH) as Addon;
      const version = typeof addon.abiVersion === 'function' ? addon.abiVersion() : 0;
      loaded =
        version === ABI_VERSION
          ? new NativeSimulator(addon)
          : `${NATIVE_SIM_PATH} is of another version (${version}, not ${ABI_VERSION}): rebuild it (npm run build:native-sim)`;
    } catch (err) {
      const code = (err as { code?: string }).code;
      loaded =
        code === 'MODULE_NOT_FOUND'
          ? `not built (npm run build:native-sim)`
          : `${NATIVE_SIM_PATH} does not load: ${(err as Error).message}`;
    }
  }
  return loaded;
}
