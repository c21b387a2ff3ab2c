/**
 * Simulated execution for eth_call, eth_estimateGas and eth_createAccessList: one message run with
 * ethereumjs's runTx over a SimulationStateManager (the state after one block, plus overrides), with
 * geth's message rules (internal/ethapi TransactionArgs.ToMessage and the state transition's
 * pre-checks with NoBaseFee and no nonce check):
 *   - `from` defaults to the zero address; the nonce is never checked;
 *   - `gasPrice` gives fee cap = tip = gasPrice; otherwise maxFeePerGas/maxPriorityFeePerGas (0 when
 *     absent) and the price is min(tip + base fee, fee cap); with a zero price the block's base fee is
 *     lowered to 0 (BASEFEE reads 0) and no fee check applies;
 *   - the sender must hold gas × fee cap + value ("insufficient funds for gas * price + value").
 * Every run is undone (checkpoint/revert around it); the overrides stay for the next run. The VM
 * comes from a pool (pool.ts): `close()` gives it back.
 *
 * Time: the EVM run is bounded by a deadline checked on JUMP/JUMPI (every loop jumps), which also
 * yields to the event loop every few milliseconds so a long call does not stall block production.
 */
import { createBlock } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { createAccessList2930Tx, createEOACode7702Tx, createFeeMarket1559Tx } from '@ethereumjs/tx';
import { Address, bigIntToUnpaddedBytes, bytesToBigInt } from '@ethereumjs/util';
import type { DecodedEthTx } from '../transactions.ts';
import { runTx, type VM } from '@ethereumjs/vm';
import { toChecksumAddress } from '../../crypto/accounts.ts';
import { toHex } from '../../primitives/bytes.ts';
import { ChainError, errorMessage } from '../../util/errors.ts';
import type { BlockEnv, EthLog } from '../block-executor.ts';
import { sharedCommon } from './common.ts';
import { Deadline } from './deadline.ts';
import { JS_HALT_MESSAGES, type NativeSimulator, packBlock } from './native-binding.ts';
import { acquireVm, type PooledVm, releaseVm, type VmOwner } from './pool.ts';
import {
  type AccountOverride,
  SimulationStateManager,
  StateOverrideError,
  type StateSource,
  type VersionReadCache,
} from './state.ts';
import { attachTracer, txStartOf } from '../tracing/bridge.ts';
import type { TxTracer } from '../tracing/tracer.ts';
import { TransferLogTracer } from '../tracing/transfer-logs.ts';

export type { AccountOverride, StateSource } from './state.ts';
export { StateOverrideError, VersionReadCache } from './state.ts';
export { SimulationTimeoutError } from './deadline.ts';

export interface AccessListItem {
  address: Uint8Array;
  storageKeys: Uint8Array[];
}

/** A signed EIP-7702 authorization (geth's SetCodeAuthorization). */
export interface Authorization {
  chainId: bigint;
  address: Uint8Array;
  nonce: bigint;
  yParity: bigint;
  r: bigint;
  s: bigint;
}

/** The message a signed transaction sends (trace_rawTransaction runs it as a simulation). */
export function messageOfTx(d: DecodedEthTx): CallMessage {
  const t = d.tx as {
    accessList?: [Uint8Array, Uint8Array[]][];
    authorizationList?: Uint8Array[][];
  };
  const msg: CallMessage = {
    from: d.sender,
    ...(d.to ? { to: d.to } : {}),
    gas: d.gasLimit,
    value: d.value,
    data: d.tx.data,
    nonce: d.nonce,
    ...(d.type === 0 || d.type === 1
      ? { gasPrice: d.maxFeePerGas }
      : { maxFeePerGas: d.maxFeePerGas, maxPriorityFeePerGas: d.maxPriorityFeePerGas }),
  };
  if (t.accessList?.length)
    msg.accessList = t.accessList.map(([address, storageKeys]) => ({ address, storageKeys }));
  if (t.authorizationList?.length)
    msg.authorizationList = t.authorizationList.map(([chainId, address, nonce, yParity, r, s]) => ({
      chainId: bytesToBigInt(chainId),
      address,
      nonce: bytesToBigInt(nonce),
      yParity: bytesToBigInt(yParity),
      r: bytesToBigInt(r),
      s: bytesToBigInt(s),
    }));
  return msg;
}

/** A call as eth_call receives it (decoded); absent fields take geth's defaults. */
export interface CallMessage {
  from?: Uint8Array;
  to?: Uint8Array;
  gas?: bigint;
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  value?: bigint;
  data?: Uint8Array;
  nonce?: bigint;
  accessList?: AccessListItem[];
  /** non-empty: the call runs as a set-code (type 4) transaction */
  authorizationList?: Authorization[];
}

/** geth's block overrides (eth_call's fourth parameter). */
export interface BlockOverrides {
  number?: bigint;
  time?: bigint;
  gasLimit?: bigint;
  baseFee?: bigint;
  coinbase?: Uint8Array;
  prevRandao?: Uint8Array;
}

export interface SimulationOptions {
  common: Common;
  /** The block context the call runs in: the requested block's (geth runs calls "in" that block). */
  env: BlockEnv;
  /** Reads of the state after the requested block. */
  state: StateSource;
  /** Gas of a call without `gas`, and the most any call or estimate may use (geth's RPCGasCap). */
  gasCap: bigint;
  /** Wall-clock budget of the whole request (every run of an estimate included), in ms; 0: none. */
  timeoutMs: number;
  stateOverrides?: readonly AccountOverride[];
  blockOverrides?: BlockOverrides;
  /** Reads of the same state version kept across simulations (state.ts). */
  readCache?: VersionReadCache;
}

/** Why a message could not run at all (geth's "core" errors); -32000 with geth's wording. */
export type SimulationErrorReason =
  | 'intrinsic_gas'
  | 'funds'
  | 'fee'
  | 'invalid'
  /** only where the nonce is checked (eth_simulateV1 with validation) */
  | 'nonce_low'
  | 'nonce_high'
  | 'nonce_max'
  /** a fee cap below the block's base fee (distinct from the other fee errors in eth_simulateV1's codes) */
  | 'base_fee';

export class SimulationError extends ChainError {
  readonly reason: SimulationErrorReason;
  constructor(reason: SimulationErrorReason, message: string) {
    super('SIMULATION_FAILED', message);
    this.reason = reason;
  }
}

export type RunResult =
  | {
      status: 'success';
      returnData: Uint8Array;
      gasUsed: bigint;
      refund: bigint;
      accessList?: AccessListItem[];
    }
  | { status: 'revert'; returnData: Uint8Array; gasUsed: bigint; accessList?: AccessListItem[] }
  /** An exceptional halt other than REVERT: out of gas, invalid opcode, ... */
  | { status: 'failure'; error: string; gasUsed: bigint; accessList?: AccessListItem[] };

/** eth_simulateV1's result of a message: its logs (none when it failed) and gas before refunds. */
export type KeptResult = RunResult & { logs: EthLog[]; maxUsedGas: bigint };

const ZERO_ADDRESS = new Uint8Array(20);
const MAX_NONCE = 2n ** 64n - 1n;

interface Fees {
  /** What the EVM sees as GASPRICE and what gas is paid at. */
  gasPrice: bigint;
  feeCap: bigint;
  tip: bigint;
  /** `gasPrice` was given (a type-1 message); otherwise fee-market fields. */
  legacy: boolean;
}

/** geth's ToMessage fee resolution against the block's base fee. */
export function resolveFees(msg: CallMessage, baseFee: bigint): Fees {
  if (msg.gasPrice !== undefined) {
    return { gasPrice: msg.gasPrice, feeCap: msg.gasPrice, tip: msg.gasPrice, legacy: true };
  }
  const feeCap = msg.maxFeePerGas ?? 0n;
  const tip = msg.maxPriorityFeePerGas ?? 0n;
  let gasPrice = 0n;
  if (feeCap > 0n || tip > 0n) gasPrice = tip + baseFee < feeCap ? tip + baseFee : feeCap;
  return { gasPrice, feeCap, tip, legacy: false };
}

export class Simulation {
  /** eth_simulateV1 moves it from one simulated block to the next (setBlock) */
  env: BlockEnv;
  readonly gasCap: bigint;
  private readonly common: Common;
  private readonly vm: VM;
  private readonly pooled: PooledVm;
  readonly state: SimulationStateManager;
  private readonly deadline: Deadline;
  /** PREVRANDAO of the block (zero: this chain has no beacon randomness; a dev chain may set one) unless overridden */
  private prevRandao: Uint8Array;
  /** what the pooled VM reads BLOCKHASH through */
  private readonly owner: VmOwner;

  private constructor(
    o: SimulationOptions,
    pooled: PooledVm,
    state: SimulationStateManager,
    deadline: Deadline,
    owner: VmOwner,
  ) {
    this.owner = owner;
    this.common = sharedCommon(o.common);
    this.gasCap = o.gasCap;
    this.pooled = pooled;
    this.vm = pooled.vm;
    this.state = state;
    this.deadline = deadline;
    const b = o.blockOverrides ?? {};
    this.env = {
      ...o.env,
      height: b.number ?? o.env.height,
      timestamp: b.time ?? o.env.timestamp,
      gasLimit: b.gasLimit ?? o.env.gasLimit,
      baseFee: b.baseFee ?? o.env.baseFee,
      coinbase: b.coinbase ?? o.env.coinbase,
    };
    this.prevRandao = b.prevRandao ?? o.env.prevRandao ?? new Uint8Array(32);
  }

  static async create(o: SimulationOptions): Promise<Simulation> {
    const deadline = new Deadline(o.timeoutMs);
    const state = new SimulationStateManager(o.state, o.env.parentAppHash, o.readCache);
    await state.applyOverrides(o.stateOverrides ?? []);
    const common = sharedCommon(o.common);
    const owner: VmOwner = { state, deadline, env: o.env };
    const pooled = await acquireVm(common, owner);
    return new Simulation(o, pooled, state, deadline, owner);
  }

  /** Gives the VM back for the next simulation; this one must not run afterwards. */
  close(): void {
    delete (this.vm.evm as { getPrecompile?: unknown }).getPrecompile;
    releaseVm(this.common, this.pooled);
  }

  /** The gas a call runs with: its own (capped at gasCap, as geth's RPCGasCap), else gasCap. */
  callGas(msg: CallMessage): bigint {
    return msg.gas === undefined || msg.gas > this.gasCap ? this.gasCap : msg.gas;
  }

  balanceOf(address: Uint8Array): Promise<bigint> {
    return this.state.read((evm, bank) => bank.wei(evm.balanceAddressOf(address)));
  }

  codeSize(address: Uint8Array): Promise<number> {
    return this.state.read((evm) => evm.code(address).length);
  }

  nonceOf(address: Uint8Array): Promise<bigint> {
    return this.state.read((evm) => evm.nonce(address));
  }

  /**
   * Runs `msg` with `gas` and undoes its effects. Throws SimulationError when the message cannot run
   * at all, SimulationTimeoutError past the deadline; EVM failures are results.
   */
  async run(
    msg: CallMessage,
    gas: bigint,
    reportAccessList = false,
    opts?: { tracer?: TxTracer },
  ): Promise<RunResult> {
    this.deadline.check();
    const from = msg.from ?? ZERO_ADDRESS;
    const value = msg.value ?? 0n;
    const fees = resolveFees(msg, this.env.baseFee);
    const checked = fees.feeCap !== 0n || fees.tip !== 0n;
    await this.checkFeesAndFunds(from, value, gas, fees, checked);
    const tx = this.buildTx(msg, from, gas, fees);
    const intrinsic = tx.getMinimumGasLimit();
    if (gas < intrinsic) {
      throw new SimulationError('intrinsic_gas', `intrinsic gas too low: have ${gas}, want ${intrinsic}`);
    }
    const block = this.buildBlock(fees.gasPrice === 0n ? 0n : this.env.baseFee);
    await this.state.checkpoint();
    // debug_traceCall: hooks on this VM for this run only (see tracing/index.ts)
    const trace = opts?.tracer
      ? attachTracer(this.vm, opts.tracer, txStartOf(tx, from, this.env.coinbase), this.vm.stateManager)
      : undefined;
    try {
      // the prestate sees the sender's code: it is hidden only from the EIP-3607 check
      await trace?.start();
      this.state.hideCodeOf(from);
      const res = await runTx(this.vm, {
        tx,
        block: block as never,
        skipNonce: true,
        skipBalance: true,
        skipBlockGasLimitValidation: true,
        skipHardForkValidation: true,
        reportAccessList,
      });
      await trace?.end({ gasUsed: res.totalGasSpent });
      const exec = res.execResult;
      const accessList = res.accessList?.map((e) => ({
        address: fromHex(e.address),
        storageKeys: e.storageKeys.map(fromHex),
      }));
      const base = { gasUsed: res.totalGasSpent, ...(accessList ? { accessList } : {}) };
      if (!exec.exceptionError) {
        return { status: 'success', returnData: exec.returnValue, refund: res.gasRefund ?? 0n, ...base };
      }
      if (exec.exceptionError.error === 'revert') {
        return { status: 'revert', returnData: exec.returnValue, ...base };
      }
      return { status: 'failure', error: exec.exceptionError.error, ...base };
    } catch (err) {
      // an aborted run may leave EVM-side state behind: this VM is not reused
      this.pooled.tainted = true;
      const stop = opts?.tracer?.abortReason;
      if (stop) throw stop;
      if (err instanceof ChainError) throw err;
      throw new SimulationError('invalid', errorMessage(err));
    } finally {
      trace?.detach();
      this.state.hideCodeOf(undefined);
      await this.state.revert();
    }
  }

  /**
   * eth_simulateV1: the next simulated block. Fields not given keep their value; the state and
   * what earlier messages wrote stay. `blockHash` answers BLOCKHASH from then on (the simulated
   * blocks before it are ancestors too).
   */
  setBlock(b: BlockOverrides, blockHash?: BlockEnv['blockHash']): void {
    this.env = {
      ...this.env,
      ...(blockHash && { blockHash }),
      height: b.number ?? this.env.height,
      timestamp: b.time ?? this.env.timestamp,
      gasLimit: b.gasLimit ?? this.env.gasLimit,
      baseFee: b.baseFee ?? this.env.baseFee,
      coinbase: b.coinbase ?? this.env.coinbase,
    };
    if (b.prevRandao) this.prevRandao = b.prevRandao;
    this.owner.env = this.env;
  }

  /**
   * eth_simulateV1's per-block state overrides, over what earlier blocks wrote, with geth's rules for
   * precompiles: any override of a precompile's address removes the precompile there (its code, if
   * given, runs instead), `movePrecompileTo` makes it answer at another address, and an address a
   * precompile was moved to cannot be overridden again in the same block. Each block starts from the
   * fork's precompiles, and a message's warm set stays the fork's precompile addresses, as geth's.
   */
  async applyStateOverrides(overrides: readonly AccountOverride[]): Promise<void> {
    const evm = this.vm.evm as { precompiles: Map<string, unknown>; getPrecompile?: unknown };
    delete evm.getPrecompile;
    const overridden = new Set(overrides.map((o) => toHex(o.address)));
    let active: Map<string, unknown> | undefined;
    const moved = new Set<string>();
    for (const o of overrides) {
      const key = toHex(o.address);
      if (moved.has(key))
        throw new StateOverrideError(
          `account ${hexAddr(o.address)} has already been overridden by a precompile`,
        );
      const p = (active ?? evm.precompiles).get(key);
      if (o.movePrecompileTo) {
        if (p === undefined)
          throw new StateOverrideError(`account ${hexAddr(o.address)} is not a precompile`);
        const to = toHex(o.movePrecompileTo);
        if (overridden.has(to))
          throw new StateOverrideError(`account ${hexAddr(o.movePrecompileTo)} is already overridden`);
        active ??= new Map(evm.precompiles);
        active.set(to, p);
        moved.add(to);
      }
      if (p !== undefined) {
        active ??= new Map(evm.precompiles);
        active.delete(key);
      }
    }
    if (active) {
      // the EVM finds a callee's precompile here; runTx's warm set reads `precompiles`, left as is
      const found = active;
      evm.getPrecompile = (address: Address | string) =>
        found.get(
          typeof address === 'string'
            ? address.slice(2).padStart(40, '0').toLowerCase()
            : toHex(address.bytes),
        );
    }
    await this.state.applyOverrides(overrides);
  }

  /**
   * eth_simulateV1's run: like run(), but its effects stay for the messages after it, and with
   * `validation` the message is checked as a transaction would be (its nonce against the sender's,
   * its fee cap against the base fee even at a zero price), as geth's simulator does. Messages that
   * cannot run throw SimulationError and change nothing.
   */
  async execute(
    msg: CallMessage,
    gas: bigint,
    opts: { validation: boolean; traceTransfers: boolean; tracer?: TxTracer },
  ): Promise<KeptResult> {
    this.deadline.check();
    const from = msg.from ?? ZERO_ADDRESS;
    const value = msg.value ?? 0n;
    const fees = resolveFees(msg, this.env.baseFee);
    const state = await this.nonceOf(from);
    const nonce = msg.nonce ?? state;
    if (opts.validation && nonce < state)
      throw new SimulationError(
        'nonce_low',
        `nonce too low: address ${hexAddr(from)}, tx: ${nonce} state: ${state}`,
      );
    if (opts.validation && nonce > state)
      throw new SimulationError(
        'nonce_high',
        `nonce too high: address ${hexAddr(from)}, tx: ${nonce} state: ${state}`,
      );
    if (opts.validation && nonce === MAX_NONCE)
      throw new SimulationError(
        'nonce_max',
        `nonce has max value: address ${hexAddr(from)}, nonce: ${nonce}`,
      );
    const checked = opts.validation || fees.feeCap !== 0n || fees.tip !== 0n;
    await this.checkFeesAndFunds(from, value, gas, fees, checked);
    // unchecked, the nonce only names the message: geth lets an account at the highest nonce send
    const tx = this.buildTx({ ...msg, nonce: nonce < MAX_NONCE ? nonce : MAX_NONCE - 1n }, from, gas, fees);
    const intrinsic = tx.getMinimumGasLimit();
    if (gas < intrinsic) {
      throw new SimulationError('intrinsic_gas', `intrinsic gas too low: have ${gas}, want ${intrinsic}`);
    }
    // a zero-priced message pays nothing: runTx would refuse it under a base fee
    const block = this.buildBlock(checked ? this.env.baseFee : 0n);
    // trace_call(Many) bring their own tracer (then logs are not the transfer logs)
    const transfers = opts.traceTransfers && !opts.tracer ? new TransferLogTracer() : undefined;
    const tracer = opts.tracer ?? transfers;
    const trace = tracer
      ? attachTracer(this.vm, tracer, txStartOf(tx, from, this.env.coinbase), this.vm.stateManager)
      : undefined;
    await this.state.checkpoint();
    let kept = false;
    try {
      await trace?.start();
      this.state.hideCodeOf(from);
      const res = await runTx(this.vm, {
        tx,
        block: block as never,
        skipNonce: true,
        skipBalance: true,
        skipBlockGasLimitValidation: true,
        skipHardForkValidation: true,
      });
      await trace?.end({ gasUsed: res.totalGasSpent });
      const exec = res.execResult;
      const gasUsed = res.totalGasSpent;
      const maxUsedGas =
        exec.executionGasUsed + intrinsic > gasUsed ? exec.executionGasUsed + intrinsic : gasUsed;
      let result: KeptResult;
      if (!exec.exceptionError) {
        const logs: EthLog[] =
          transfers?.result() ??
          (exec.logs ?? []).map(([address, topics, data]) => ({ address, topics, data }));
        result = {
          status: 'success',
          returnData: exec.returnValue,
          refund: res.gasRefund ?? 0n,
          gasUsed,
          maxUsedGas,
          logs,
        };
      } else if (exec.exceptionError.error === 'revert') {
        result = { status: 'revert', returnData: exec.returnValue, gasUsed, maxUsedGas, logs: [] };
      } else {
        result = { status: 'failure', error: exec.exceptionError.error, gasUsed, maxUsedGas, logs: [] };
      }
      await this.state.commit();
      kept = true;
      return result;
    } catch (err) {
      this.pooled.tainted = true;
      const stop = tracer?.abortReason;
      if (stop) throw stop;
      if (err instanceof ChainError) throw err;
      throw new SimulationError('invalid', errorMessage(err));
    } finally {
      trace?.detach();
      this.state.hideCodeOf(undefined);
      if (!kept) await this.state.revert();
    }
  }

  /**
   * eth_call's run: run()'s status and return data. A call to an address at a zero gas price (what
   * eth_call sends unless told otherwise) moves no fees, so runTx's fee accounting (sender debit,
   * miner credit, refunds, the touched-account sweep) has no effect on what the EVM sees; the EVM's
   * runCall is started directly with runTx's setup (EIP-2929 warm set, intrinsic gas, sender nonce
   * bump) and everything is reverted. Other calls go through run(). `gasUsed` excludes refunds.
   */
  async call(msg: CallMessage, gas: bigint): Promise<RunResult> {
    const fees = resolveFees(msg, this.env.baseFee);
    if (
      !msg.to ||
      msg.authorizationList?.length ||
      fees.feeCap !== 0n ||
      fees.tip !== 0n ||
      !directCalls(this.common)
    )
      return this.run(msg, gas);
    this.deadline.check();
    const from = msg.from ?? ZERO_ADDRESS;
    const value = msg.value ?? 0n;
    await this.assertPaysValue(from, value);
    const tx = this.buildTx(msg, from, gas, fees);
    const minimum = tx.getMinimumGasLimit();
    if (gas < minimum) {
      throw new SimulationError('intrinsic_gas', `intrinsic gas too low: have ${gas}, want ${minimum}`);
    }
    const intrinsic = tx.getIntrinsicGas();
    const evm = this.vm.evm;
    const journal = evm.journal;
    const caller = new Address(from);
    await this.state.checkpoint();
    try {
      // what runTx does before its EVM call: a fresh warm set with the origin, the target, the
      // precompiles, the coinbase (EIP-3651) and the access list
      await journal.cleanup();
      for (const [address] of evm.precompiles) journal.addAlwaysWarmAddress(address);
      journal.addAlwaysWarmAddress(toHex(from));
      journal.addAlwaysWarmAddress(toHex(msg.to));
      journal.addAlwaysWarmAddress(toHex(this.env.coinbase));
      for (const e of msg.accessList ?? []) {
        const address = toHex(e.address);
        journal.addAlwaysWarmAddress(address);
        for (const k of e.storageKeys) journal.addAlwaysWarmSlot(address, toHex(k));
      }
      await journal.checkpoint();
      const res = await evm.runCall({
        block: this.callBlock() as never,
        gasPrice: 0n,
        caller,
        origin: caller,
        gasLimit: gas - intrinsic,
        to: new Address(msg.to),
        value,
        data: msg.data ?? new Uint8Array(0),
      });
      // runCall settled its own checkpoints: this one is on top
      await journal.revert();
      const exec = res.execResult;
      const gasUsed = intrinsic + exec.executionGasUsed;
      if (!exec.exceptionError)
        return { status: 'success', returnData: exec.returnValue, refund: 0n, gasUsed };
      if (exec.exceptionError.error === 'revert')
        return { status: 'revert', returnData: exec.returnValue, gasUsed };
      return { status: 'failure', error: exec.exceptionError.error, gasUsed };
    } catch (err) {
      // as in run(): an aborted run may leave EVM-side state behind
      this.pooled.tainted = true;
      if (err instanceof ChainError) throw err;
      throw new SimulationError('invalid', errorMessage(err));
    } finally {
      journal.cleanJournal();
      this.vm.stateManager.originalStorageCache.clear();
      await this.state.revert();
    }
  }

  /**
   * eth_call's run on the native simulator (native-binding.ts), for the messages `call` starts
   * directly (a call to an address at a zero gas price, without access list, authorizations or
   * nonce), answering exactly what `call` answers: same state reads (state.ts `nativeHost`), same
   * block context, same pre-checks and errors. Undefined when `call` must answer instead: another
   * kind of message, one that cannot run (its error is the JS EVM's), a halt whose ethereumjs
   * wording is not known, a call past the native time slice, or one reading many keys not loaded yet.
   */
  async callNative(native: NativeSimulator, msg: CallMessage, gas: bigint): Promise<RunResult | undefined> {
    const fees = resolveFees(msg, this.env.baseFee);
    const value = msg.value ?? 0n;
    if (
      !msg.to ||
      msg.authorizationList?.length ||
      msg.accessList?.length ||
      msg.nonce !== undefined ||
      fees.feeCap !== 0n ||
      fees.tip !== 0n ||
      value >= MAX_VALUE ||
      gas >= MAX_GAS ||
      // the fork the parity test covers (and the chain's)
      this.common.hardfork() !== 'prague'
    )
      return undefined;
    this.deadline.check();
    const from = msg.from ?? ZERO_ADDRESS;
    await this.assertPaysValue(from, value);
    const host = this.state.nativeHost((n) => this.env.blockHash(n));
    const message = { from, to: msg.to, value, gasLimit: gas, gasPrice: 0n, data: msg.data ?? EMPTY };
    const block = this.nativeBlock();
    let out;
    try {
      out = await this.state.settleNative(() => native.call(message, block, host), NATIVE_MISSES);
    } catch (err) {
      // a state read's own error is the JS EVM's too; anything else (a fault of the addon) is left
      // to the JS EVM to answer, which rethrows a read's failure as it always did
      if (err instanceof ChainError) throw err;
      return undefined;
    }
    if (!out) return undefined;
    const gasUsed = out.gasUsed;
    switch (out.status) {
      case 'success':
        return { status: 'success', returnData: out.output, refund: 0n, gasUsed };
      case 'revert':
        return { status: 'revert', returnData: out.output, gasUsed };
      case 'halt': {
        const error = JS_HALT_MESSAGES[out.error ?? ''];
        return error === undefined ? undefined : { status: 'failure', error, gasUsed };
      }
      default:
        return undefined;
    }
  }

  /** The block context of a zero-priced call, packed for the native simulator (shared as callBlock). */
  private nativeBlock(): Uint8Array {
    const e = this.env;
    const key = `${e.height}:${e.timestamp}:${e.gasLimit}:${toHex(e.coinbase)}:${toHex(this.prevRandao)}`;
    const last = lastNativeBlock;
    if (last?.common === this.common && last.key === key) return last.block;
    const block = packBlock({
      number: e.height,
      timestamp: e.timestamp,
      coinbase: e.coinbase,
      baseFee: 0n,
      gasLimit: e.gasLimit,
      prevRandao: this.prevRandao,
      chainId: this.common.chainId(),
      spec: 'prague',
    });
    lastNativeBlock = { common: this.common, key, block };
    return block;
  }

  /**
   * The message as an unsigned transaction. ethereumjs checks every field's range as it builds one; a
   * value it refuses is the caller's (-32000 with its reason), not a fault of the node.
   */
  /** A direct call moves `value` without charging gas: the sender must hold it, as geth checks. */
  private async assertPaysValue(from: Uint8Array, value: bigint): Promise<void> {
    if (value === 0n) return;
    const have = await this.balanceOf(from);
    if (have < value) {
      throw new SimulationError(
        'funds',
        `insufficient funds for gas * price + value: address ${hexAddr(from)} have ${have} want ${value}`,
      );
    }
  }

  /**
   * geth's pre-execution checks of a message's fees (when `checked`: fees given, or validation on)
   * and of the sender's funds for gas × fee cap + value, in geth's order and words.
   */
  private async checkFeesAndFunds(
    from: Uint8Array,
    value: bigint,
    gas: bigint,
    fees: ReturnType<typeof resolveFees>,
    checked: boolean,
  ): Promise<void> {
    if (checked && fees.feeCap < fees.tip) {
      throw new SimulationError(
        'fee',
        `max priority fee per gas higher than max fee per gas: address ${hexAddr(from)}, maxPriorityFeePerGas: ${fees.tip}, maxFeePerGas: ${fees.feeCap}`,
      );
    }
    if (checked && fees.feeCap < this.env.baseFee) {
      throw new SimulationError(
        'base_fee',
        `max fee per gas less than block base fee: address ${hexAddr(from)}, maxFeePerGas: ${fees.feeCap}, baseFee: ${this.env.baseFee}`,
      );
    }
    const have = await this.balanceOf(from);
    const want = gas * fees.feeCap + value;
    if (have < want) {
      throw new SimulationError(
        'funds',
        `insufficient funds for gas * price + value: address ${hexAddr(from)} have ${have} want ${want}`,
      );
    }
  }

  private buildTx(msg: CallMessage, from: Uint8Array, gas: bigint, fees: Fees) {
    try {
      return this.buildTxUnchecked(msg, from, gas, fees);
    } catch (err) {
      if (err instanceof ChainError) throw err;
      throw new ChainError('SIMULATION_INVALID_CALL', `invalid call: ${errorMessage(err)}`);
    }
  }

  private buildTxUnchecked(msg: CallMessage, from: Uint8Array, gas: bigint, fees: Fees) {
    const fields = {
      chainId: this.common.chainId(),
      nonce: msg.nonce ?? 0n,
      gasLimit: gas,
      to: msg.to ? new Address(msg.to) : undefined,
      value: msg.value ?? 0n,
      data: msg.data ?? new Uint8Array(0),
      accessList: (msg.accessList ?? []).map((e) => ({
        address: '0x' + toHex(e.address),
        storageKeys: e.storageKeys.map((k) => '0x' + toHex(k)),
      })) as never,
    };
    const opts = { common: this.common, freeze: false };
    const market = { maxFeePerGas: fees.feeCap, maxPriorityFeePerGas: fees.tip };
    const auths = msg.authorizationList ?? [];
    const tx =
      auths.length > 0
        ? createEOACode7702Tx(
            {
              ...fields,
              ...market,
              authorizationList: auths.map((a) => [
                bigIntToUnpaddedBytes(a.chainId),
                a.address,
                bigIntToUnpaddedBytes(a.nonce),
                bigIntToUnpaddedBytes(a.yParity),
                bigIntToUnpaddedBytes(a.r),
                bigIntToUnpaddedBytes(a.s),
              ]),
            },
            opts,
          )
        : fees.legacy
          ? createAccessList2930Tx({ ...fields, gasPrice: fees.gasPrice }, opts)
          : createFeeMarket1559Tx({ ...fields, ...market }, opts);
    // Unsigned: the sender is whoever the caller names (geth's eth_call has no signature either).
    const sender = new Address(from);
    tx.getSenderAddress = () => sender;
    return tx;
  }

  /**
   * The block of a zero-priced call (base fee 0), shared by consecutive calls in the same block
   * context: building one costs about as much as the rest of a call's setup, and the EVM only reads it.
   */
  private callBlock() {
    const e = this.env;
    const key = `${e.height}:${e.timestamp}:${e.gasLimit}:${toHex(e.coinbase)}:${toHex(this.prevRandao)}`;
    const last = lastCallBlock;
    if (last?.common === this.common && last.key === key) return last.block;
    const block = this.buildBlock(0n);
    lastCallBlock = { common: this.common, key, block };
    return block;
  }

  private buildBlock(baseFee: bigint) {
    const e = this.env;
    return createBlock(
      {
        header: {
          number: e.height,
          timestamp: e.timestamp,
          gasLimit: e.gasLimit,
          baseFeePerGas: baseFee,
          coinbase: new Address(e.coinbase),
          difficulty: 0n,
          mixHash: this.prevRandao,
          parentBeaconBlockRoot: new Uint8Array(32),
        },
      },
      { common: this.common, setHardfork: false, skipConsensusFormatValidation: true },
    );
  }
}

let lastCallBlock: { common: Common; key: string; block: ReturnType<typeof createBlock> } | undefined;
let lastNativeBlock: { common: Common; key: string; block: Uint8Array } | undefined;
const EMPTY = new Uint8Array(0);
/** Past these a value or gas limit does not fit a transaction: the JS EVM words the refusal. */
const MAX_VALUE = 1n << 256n;
const MAX_GAS = 1n << 64n;
/** Keys a native call may find missing (each reruns it) before the JS EVM takes the call over. */
const NATIVE_MISSES = 8;

/** Forks whose gas rules (EIP-8037 state gas, EIP-7928 access lists, EIP-7864 witnesses) runTx applies around the EVM call. */
const directCalls = (common: Common) =>
  !common.isActivatedEIP(8037) && !common.isActivatedEIP(7928) && !common.isActivatedEIP(7864);

/** geth prints addresses in errors with common.Address.Hex(): EIP-55 checksummed. */
const hexAddr = toChecksumAddress;
const fromHex = (h: string) => Uint8Array.from(Buffer.from(h.startsWith('0x') ? h.slice(2) : h, 'hex'));
