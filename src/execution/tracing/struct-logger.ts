/**
 * geth's default tracer, the struct logger (eth/tracers/logger), printed as geth 1.14 prints it:
 * `{gas, failed, returnValue, structLogs}` where
 * - `returnValue` is hex WITHOUT `0x` (1.14's fmt "%x"; 1.15 later added the prefix): the output on
 *   success, the revert data on a revert, "" on any other failure;
 * - each log is `{pc, op, gas, gasCost, depth, error?, stack?, returnData?, memory?, storage?, refund?}`
 *   with the stack as `0x` quantities (bottom first), memory as 32-byte words without `0x`, storage
 *   (on SLOAD/SSTORE only) as the slots this contract read or wrote so far in the transaction, keys and
 *   values 64 hex chars without `0x`, and `refund` omitted when 0.
 */
import { bareHex, hexBytes, pad32, quantity, word } from './hex.ts';
import { TxTracer, type TraceTxContext } from './tracer.ts';
import type { Exit, OpStep, TxEnd } from './types.ts';

export interface StructLoggerConfig {
  disableStack?: boolean;
  disableStorage?: boolean;
  enableMemory?: boolean;
  enableReturnData?: boolean;
  /** 0 or absent: unlimited */
  limit?: number;
}

interface StructLogRes {
  pc: number;
  op: string;
  gas: number;
  gasCost: number;
  depth: number;
  error?: string;
  stack?: string[];
  returnData?: string;
  memory?: string[];
  storage?: Record<string, string>;
  refund?: number;
}

export interface StructLoggerResult {
  gas: number;
  failed: boolean;
  returnValue: string;
  structLogs: StructLogRes[];
}

export class StructLogger extends TxTracer {
  readonly name = 'structLogger';
  private readonly cfg: StructLoggerConfig;
  private readonly logs: StructLogRes[] = [];
  /** per contract: the slots seen so far, hex key → hex value */
  private readonly storage = new Map<string, Map<string, string>>();
  /** whether the latest step was recorded (a fault belongs to it) */
  private lastRecorded = false;
  private output: Uint8Array = new Uint8Array(0);
  private error?: string;
  private usedGas = 0n;

  constructor(cfg: StructLoggerConfig, ctx: TraceTxContext) {
    super(ctx);
    this.cfg = cfg;
  }

  override async onOpcode(s: OpStep): Promise<void> {
    const limit = this.cfg.limit ?? 0;
    if (limit !== 0 && limit <= this.logs.length) {
      this.lastRecorded = false;
      return;
    }
    // the JSON of a log without stack, memory or storage: keys, punctuation and numbers
    this.charge(96 + s.opName.length);
    const log: StructLogRes = {
      pc: s.pc,
      op: s.opName,
      gas: Number(s.gas),
      gasCost: Number(s.cost),
      depth: s.depth,
    };
    const n = s.stack.length;
    if (!this.cfg.disableStack) {
      const stack = s.stack.map((v) => quantity(v));
      let bytes = 10;
      for (const v of stack) bytes += v.length + 3;
      this.charge(bytes);
      log.stack = stack;
    }
    if (s.returnData.length > 0 && this.cfg.enableReturnData) {
      this.charge(18 + 2 * s.returnData.length);
      log.returnData = hexBytes(s.returnData);
    }
    if (this.cfg.enableMemory) {
      // charged before the words are built: a large memory is refused without copying it
      const count = s.memory.length >>> 5;
      this.charge(12 + count * 67);
      const words: string[] = new Array(count);
      for (let i = 0; i < count; i++) words[i] = bareHex(s.memory.subarray(i * 32, i * 32 + 32));
      log.memory = words;
    }
    if (!this.cfg.disableStorage && (s.op === 0x54 || s.op === 0x55)) {
      const key = bareHex(s.address);
      let slots = this.storage.get(key);
      if (!slots) this.storage.set(key, (slots = new Map()));
      if (s.op === 0x54 && n >= 1) {
        const slot = word(s.stack[n - 1]);
        slots.set(bareHex(slot), bareHex(pad32(await s.state.storage(s.address, slot))));
        // every slot seen so far is printed again at each SLOAD/SSTORE
        this.charge(14 + slots.size * 134);
        log.storage = sortedObject(slots);
      } else if (s.op === 0x55 && n >= 2) {
        slots.set(bareHex(word(s.stack[n - 1])), bareHex(word(s.stack[n - 2])));
        this.charge(14 + slots.size * 134);
        log.storage = sortedObject(slots);
      }
    }
    if (s.refund !== 0n) log.refund = Number(s.refund);
    this.logs.push(log);
    this.lastRecorded = true;
  }

  override onOpcodeFault(error: string): void {
    if (!this.lastRecorded) return;
    const last = this.logs[this.logs.length - 1];
    // geth's field order puts error after depth
    const { pc, op, gas, gasCost, depth, ...rest } = last;
    this.logs[this.logs.length - 1] = { pc, op, gas, gasCost, depth, error, ...rest };
  }

  override onExit(e: Exit): void {
    if (e.depth !== 0) return;
    this.output = e.output;
    this.error = e.error;
  }

  override onTxEnd(end: TxEnd): void {
    this.usedGas = end.gasUsed;
  }

  result(): StructLoggerResult {
    const failed = this.error !== undefined;
    const returnValue = failed && this.error !== 'execution reverted' ? '' : bareHex(this.output);
    return { gas: Number(this.usedGas), failed, returnValue, structLogs: this.logs };
  }
}

/** Go's encoding/json prints map keys sorted. */
function sortedObject(m: Map<string, string>): Record<string, string> {
  return Object.fromEntries([...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
