/**
 * Synchronous steps for the simulation EVMs (eth_call, eth_estimateGas, eth_createAccessList,
 * debug_traceCall). ethereumjs's interpreter awaits every opcode: `runStep` is async, so each PUSH,
 * DUP or ADD allocates a promise and waits a microtask turn, which for a cheap call is a large part
 * of the EVM's time. Most opcodes are synchronous with static gas; for those, the step here does
 * exactly what ethereumjs's step does (invalid-opcode check, base gas, program counter, the EIP-7928
 * pending-OOG hook, the handler, the access-witness commit) without a promise, and the loop awaits
 * only the steps that return one: a static-gas handler that returns a promise (BLOCKHASH, or the
 * deadline's JUMP/JUMPI when it yields). MLOAD, MSTORE, MSTORE8, KECCAK256, RETURN and REVERT are
 * synchronous too, their gas computed with ethereumjs's own `subMemUsage`/`divCeil` as their stock gas
 * functions do. Every other step — other dynamic gas (calls, storage, copies), a `step` listener
 * (tracers), debug or profiler mode, the stateless EIPs — is ethereumjs's own, as is every run of EOF
 * code.
 *
 * Only EVMs registered with `useSyncSteps` take this path: the simulation pool's and the block
 * executor's (docs/adr/0023-block-execution-evm-fast-paths.md). The methods are private to ethereumjs (the pinned 10.1.x): if they are
 * not where expected, nothing is patched and every EVM runs as before.
 */
import { BIGINT_0, EthereumJSErrorWithoutCode } from '@ethereumjs/util';

type Step = { opcodeInfo: OpInfo; opHandler: (...args: unknown[]) => unknown; gasHandler?: unknown };
interface OpInfo {
  code: number;
  isAsync: boolean;
  dynamicGas: boolean;
  isInvalid: boolean;
  feeBigInt: bigint;
}
interface RunState {
  stack: { peek(n?: number): bigint[] };
  code: Uint8Array;
  programCounter: number;
  opCode: number;
  gasLeft: bigint;
  validJumps: Uint8Array;
  cachedPushes: Record<number, bigint>;
  shouldDoJumpAnalysis: boolean;
  eip8037BurnLeftoverAfterCreateHaltOntoAlive?: boolean;
  env: { chargeCodeAccesses?: boolean; accessWitness?: { revert(): void; commit(): void } };
  interpreter: { getAddress(): unknown };
  stateManager: { checkChunkWitnessPresent(a: unknown, pc: number): Promise<boolean> };
}
interface InterpreterLike {
  _evm: { DEBUG: boolean; events?: { listenerCount(e: string): number } };
  _runState: RunState;
  common: { isActivatedEIP(eip: number): boolean };
  profilerOpts?: { enabled?: boolean };
  lookupOpInfo(op: number): Step;
  useGas(amount: bigint, context: unknown): void;
  _getValidJumpDestinations(code: Uint8Array): {
    jumps: Uint8Array;
    pushes: Record<number, bigint>;
    opcodesCached: Step[];
  };
  run(code: Uint8Array, opts?: { pc?: number }): Promise<unknown>;
  runStep(step?: Step): Promise<void> | undefined;
}
interface EvmErrors {
  EVMError: { new (error: string): object; errorMessages: Record<string, string> };
  EVMErrorTypeString: string;
}

const registered = new WeakSet<object>();

/** Whether the patch is installed (tests check that it is, so an upgrade that moves it is noticed). */
export let syncStepsInstalled = false;

/** Runs `evm`'s interpreters with synchronous steps (when installed); returns whether it will. */
export function useSyncSteps(evm: object): boolean {
  if (syncStepsInstalled) registered.add(evm);
  return syncStepsInstalled;
}

try {
  const entry = import.meta.resolve('@ethereumjs/evm');
  const [interp, oog, errors, gasModule, util] = await Promise.all([
    import(new URL('./interpreter.js', entry).href),
    import(new URL('./opcodes/EIP7928.js', entry).href),
    import(new URL('./errors.js', entry).href),
    import(new URL('./opcodes/gas.js', entry).href),
    import(new URL('./opcodes/util.js', entry).href),
  ]);
  const stockGas = gasModule.dynamicGasHandlers as Map<number, unknown> | undefined;
  const subMemUsage = util.subMemUsage as
    ((rs: RunState, offset: bigint, length: bigint, common: unknown) => bigint) | undefined;
  const divCeil = util.divCeil as ((a: bigint, b: bigint) => bigint) | undefined;
  type Common = InterpreterLike['common'] & { param(name: string): bigint };
  /**
   * Dynamic gas computed here, as the stock gas functions of these opcodes compute it (memory
   * expansion, and KECCAK256's per-word cost), when the EVM has those functions: the opcodes whose
   * handlers are synchronous and whose gas depends on memory only.
   */
  const SYNC_GAS = new Map<number, (rs: RunState, common: Common) => bigint>([
    [0x51, (rs, c) => subMemUsage!(rs, rs.stack.peek()[0], 32n, c)], // MLOAD
    [0x52, (rs, c) => subMemUsage!(rs, rs.stack.peek()[0], 32n, c)], // MSTORE
    [0x53, (rs, c) => subMemUsage!(rs, rs.stack.peek()[0], 1n, c)], // MSTORE8
    [
      0x20, // KECCAK256
      (rs, c) => {
        const [offset, length] = rs.stack.peek(2);
        return subMemUsage!(rs, offset, length, c) + c.param('keccak256WordGas') * divCeil!(length, 32n);
      },
    ],
    [0xf3, (rs, c) => memoryRange(rs, c)], // RETURN
    [0xfd, (rs, c) => memoryRange(rs, c)], // REVERT
  ]);
  const memoryRange = (rs: RunState, c: Common) => {
    const [offset, length] = rs.stack.peek(2);
    return subMemUsage!(rs, offset, length, c);
  };
  const proto = interp.Interpreter?.prototype as InterpreterLike | undefined;
  const consumeOog = oog.consumeEip7928PostTargetCallOog as ((rs: RunState) => void) | undefined;
  const { EVMError, EVMErrorTypeString } = errors as EvmErrors;
  const stockRun = proto?.run;
  const stockStep = proto?.runStep;
  if (
    proto &&
    typeof stockRun === 'function' &&
    typeof stockStep === 'function' &&
    typeof consumeOog === 'function' &&
    typeof subMemUsage === 'function' &&
    typeof divCeil === 'function' &&
    stockGas instanceof Map &&
    [...SYNC_GAS.keys()].every((op) => typeof stockGas.get(op) === 'function') &&
    typeof EVMError === 'function' &&
    typeof EVMError.errorMessages?.STOP === 'string' &&
    typeof EVMErrorTypeString === 'string'
  ) {
    const INVALID_OPCODE = EVMError.errorMessages.INVALID_OPCODE;
    const STOP = EVMError.errorMessages.STOP;
    const OUT_OF_GAS = EVMError.errorMessages.OUT_OF_GAS;

    proto.runStep = function (this: InterpreterLike, step?: Step): Promise<void> | undefined {
      if (!registered.has(this._evm)) return stockStep.call(this, step);
      const entry = step ?? this.lookupOpInfo(this._runState.opCode);
      const info = entry.opcodeInfo;
      const syncGas = info.dynamicGas ? SYNC_GAS.get(info.code) : undefined;
      if (
        (info.dynamicGas && (syncGas === undefined || entry.gasHandler !== stockGas.get(info.code))) ||
        this.profilerOpts?.enabled === true ||
        this._evm.DEBUG ||
        (this._evm.events?.listenerCount('step') ?? 0) > 0 ||
        this.common.isActivatedEIP(6800) ||
        this.common.isActivatedEIP(7864)
      )
        return stockStep.call(this, step);
      const rs = this._runState;
      let gas = info.feeBigInt;
      if (syncGas !== undefined) gas += syncGas(rs, this.common as Common);
      if (info.isInvalid) throw new EVMError(INVALID_OPCODE);
      this.useGas(gas, info);
      rs.programCounter++;
      consumeOog(rs);
      const done = entry.opHandler.apply(null, [rs, this.common]);
      // an asynchronous handler (BLOCKHASH, SELFBALANCE) is awaited; one that finished (the
      // deadline's JUMP/JUMPI, unless it yields) is not
      if (info.isAsync && typeof (done as PromiseLike<unknown> | undefined)?.then === 'function') {
        return Promise.resolve(done).then(() => {
          rs.env.accessWitness?.commit();
        });
      }
      rs.env.accessWitness?.commit();
      return undefined;
    };

    proto.run = function (this: InterpreterLike, code: Uint8Array, opts: { pc?: number } = {}) {
      if (
        !registered.has(this._evm) ||
        this.profilerOpts?.enabled === true ||
        (this.common.isActivatedEIP(3540) && code[0] === 0xef)
      )
        return stockRun.call(this, code, opts);
      return runLegacy(this, code, opts);
    };

    /** ethereumjs's run() for legacy (non-EOF) code, awaiting only the steps that return a promise. */
    const runLegacy = async (self: InterpreterLike, code: Uint8Array, opts: { pc?: number }) => {
      const rs = self._runState;
      rs.code = code;
      rs.programCounter = opts.pc ?? rs.programCounter;
      const pc = rs.programCounter;
      if (pc !== 0 && (pc < 0 || pc >= rs.code.length)) {
        throw EthereumJSErrorWithoutCode('Internal error: program counter not in range');
      }
      let err: { error: string } | undefined;
      let cachedOpcodes: Step[] = [];
      let doJumpAnalysis = true;
      while (rs.programCounter < rs.code.length) {
        const programCounter = rs.programCounter;
        let opCode: number;
        let step: Step | undefined;
        if (doJumpAnalysis) {
          opCode = rs.code[programCounter];
          // as ethereumjs: analyse the code once it has a jump
          if (opCode === 0x56 || opCode === 0x57 || opCode === 0x5e) {
            const { jumps, pushes, opcodesCached } = self._getValidJumpDestinations(rs.code);
            rs.validJumps = jumps;
            rs.cachedPushes = pushes;
            rs.shouldDoJumpAnalysis = false;
            cachedOpcodes = opcodesCached;
            doJumpAnalysis = false;
          }
        } else {
          step = cachedOpcodes[programCounter];
          opCode = step.opcodeInfo.code;
        }
        if (opCode === 0xfe && self.common.isActivatedEIP(7864) && rs.env.chargeCodeAccesses === true) {
          const contract = rs.interpreter.getAddress();
          if (!(await rs.stateManager.checkChunkWitnessPresent(contract, programCounter))) {
            throw Error(`Invalid witness with missing codeChunk for pc=${programCounter}`);
          }
        }
        rs.opCode = opCode;
        try {
          const pending = self.runStep(step);
          if (pending !== undefined) await pending;
        } catch (e) {
          rs.env.accessWitness?.revert();
          if (!(
            'errorType' in (e as object) && (e as { errorType: unknown }).errorType === EVMErrorTypeString
          ))
            throw e;
          if ((e as { error: string }).error !== STOP) err = e as { error: string };
          break;
        }
      }
      if (
        err === undefined &&
        rs.eip8037BurnLeftoverAfterCreateHaltOntoAlive === true &&
        rs.gasLeft > BIGINT_0
      ) {
        rs.gasLeft = BIGINT_0;
        err = new EVMError(OUT_OF_GAS) as { error: string };
      }
      return { runState: rs, exceptionError: err };
    };
    syncStepsInstalled = true;
  }
} catch {
  // not patched: every EVM awaits every step, as it always did
}
