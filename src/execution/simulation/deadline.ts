/**
 * The time budget of a simulation (`[evm] simulation_evm_timeout`): checked on JUMP and JUMPI, since
 * every loop jumps, and the same check yields to the event loop every few milliseconds so that a
 * long call does not stall block production or other requests (while a block is in progress the
 * call waits for it: util/block-first.ts).
 */
import type { Common } from '@ethereumjs/common';
import type { EVMOpts } from '@ethereumjs/evm';
import { yieldToBlocks } from '../../util/block-first.ts';
import { ChainError } from '../../util/errors.ts';
import { stockHandlers } from './common.ts';

type CustomOpcode = NonNullable<EVMOpts['customOpcodes']>[number];
type OpHandler = Extract<CustomOpcode, { logicFunction: unknown }>['logicFunction'];

export class SimulationTimeoutError extends ChainError {
  constructor(timeoutMs: number) {
    super('SIMULATION_TIMEOUT', `execution aborted (timeout = ${goDuration(timeoutMs)})`);
  }
}

/** Go's time.Duration formatting of whole milliseconds ("5s", "1m0s", "500ms"), as geth prints it. */
function goDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  return (h ? `${h}h${m}m` : m ? `${m}m` : '') + `${s}s`;
}

/** The request's time budget; `tick` runs on every jump. */
export class Deadline {
  private readonly at: number;
  private readonly ms: number;
  private lastYield = performance.now();
  private jumps = 0;
  constructor(ms: number) {
    this.ms = ms;
    // 0 = no limit, as geth's RPCEVMTimeout
    this.at = ms > 0 ? performance.now() + ms : Infinity;
  }
  check(): void {
    if (performance.now() > this.at) throw new SimulationTimeoutError(this.ms);
  }
  /** Throws past the deadline; a promise when it is time to yield, else nothing (most jumps). */
  tick(): Promise<void> | undefined {
    if ((++this.jumps & 1023) !== 0) return undefined;
    const now = performance.now();
    if (now > this.at) throw new SimulationTimeoutError(this.ms);
    if (now - this.lastYield <= 8) return undefined;
    return yieldToBlocks().then(() => {
      this.lastYield = performance.now();
    });
  }
}

/** JUMP and JUMPI with the deadline check (of whoever runs the VM now) in front of the stock handlers. */
export function deadlineOpcodes(common: Common, deadline: () => Deadline | undefined): CustomOpcode[] {
  const handlers = stockHandlers(common);
  return [
    [0x56, 'JUMP', 'jumpGas'],
    [0x57, 'JUMPI', 'jumpiGas'],
  ].map(([opcode, name, gasParam]) => {
    const stock = handlers.get(opcode as number)!;
    return {
      opcode: opcode as number,
      opcodeName: name as string,
      baseFee: Number(common.param(gasParam as string)),
      // synchronous unless the deadline yields, so that the jump can be a synchronous step (sync-steps.ts)
      logicFunction: ((runState, c) => {
        const wait = deadline()?.tick();
        return wait ? wait.then(() => stock(runState, c)) : stock(runState, c);
      }) as OpHandler,
    } satisfies CustomOpcode;
  });
}
