/**
 * eth_simulateV1's `traceTransfers` (geth's simulate tracer): every call's logs in execution order,
 * with an ERC-7528 Transfer log (emitted by the pseudo address 0xeeee…eeee) wherever a frame moves
 * ether. A transfer is logged when its frame is entered, before anything the callee logs, and the
 * logs of a frame that fails go with it, as a reverted frame's own logs do.
 */
import type { EthLog } from '../block-executor.ts';
import { TxTracer } from './tracer.ts';
import type { Enter, Exit, TraceLog } from './types.ts';

/** ERC-7528's stand-in address for ether. */
export const ETH_TRANSFER_ADDRESS = new Uint8Array(20).fill(0xee);
/** keccak256("Transfer(address,address,uint256)") */
export const TRANSFER_TOPIC = Uint8Array.from(
  Buffer.from('ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef', 'hex'),
);

const word = (n: bigint): Uint8Array => Uint8Array.from(Buffer.from(n.toString(16).padStart(64, '0'), 'hex'));
const addressWord = (a: Uint8Array): Uint8Array => {
  const w = new Uint8Array(32);
  w.set(a, 12);
  return w;
};

export class TransferLogTracer extends TxTracer {
  readonly name = 'transferLogTracer';
  /** one list per open frame; the outermost stays once the transaction ends */
  private readonly frames: EthLog[][] = [[]];

  constructor() {
    super({ blockHeight: 0n });
  }

  override onEnter(e: Enter): void {
    const logs: EthLog[] = [];
    this.frames.push(logs);
    // a DELEGATECALL carries its caller's value without moving it
    if (e.type !== 'DELEGATECALL' && e.value !== undefined && e.value > 0n) {
      logs.push({
        address: ETH_TRANSFER_ADDRESS,
        topics: [TRANSFER_TOPIC, addressWord(e.from), addressWord(e.to)],
        data: word(e.value),
      });
    }
  }

  override onLog(log: TraceLog): void {
    this.frames[this.frames.length - 1]!.push({ address: log.address, topics: log.topics, data: log.data });
  }

  override onExit(e: Exit): void {
    const logs = this.frames.pop();
    if (!logs || this.frames.length === 0) return;
    if (e.error === undefined && !e.reverted) this.frames[this.frames.length - 1]!.push(...logs);
  }

  /** The transaction's logs, transfers included. */
  result(): EthLog[] {
    return this.frames[0] ?? [];
  }
}
