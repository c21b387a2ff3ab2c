/**
 * Block time control as anvil and Hardhat serve it. Time moves by an offset the producer adds to the
 * clock (and by a fixed next time or interval), never by rewriting a block: the chain's block times
 * stay increasing, and a restart replays every block with the time it carries.
 */
import { optional } from '../codecs/params.ts';
import { method, type MethodTable } from '../server/dispatcher.ts';
import { InvalidParamsError } from '../server/errors.ts';
import type { ChainReader } from '../evm/backend.ts';
import type { DevNode } from './backend.ts';
import { uint } from './params.ts';

/** anvil's refusal of a next block time before the latest block's (the same second is allowed). */
export function assertNotBeforeLatest(chain: ChainReader, seconds: number): void {
  const latest = chain.blockContext(chain.latestHeight())?.timestamp;
  if (latest !== undefined && seconds < latest)
    throw new InvalidParamsError(`Timestamp error: ${seconds} is lower than previous block's timestamp`);
}

export function timeMethods(dev: DevNode, chain: ChainReader): MethodTable {
  const { clock } = dev;
  const increaseTime = method([uint], (seconds) => clock.increase(seconds));
  const setNextBlockTimestamp = method([uint], (seconds) => {
    assertNotBeforeLatest(chain, seconds);
    clock.setNext(seconds);
    return null;
  });
  return {
    evm_increaseTime: increaseTime,
    anvil_increaseTime: increaseTime,
    evm_setNextBlockTimestamp: setNextBlockTimestamp,
    anvil_setNextBlockTimestamp: setNextBlockTimestamp,
    anvil_setBlockTimestampInterval: method([uint], (seconds) => {
      if (seconds < 1) throw new InvalidParamsError('the block timestamp interval must be at least 1 second');
      clock.setInterval(seconds);
      return null;
    }),
    anvil_removeBlockTimestampInterval: method([optional(uint)], () => {
      const had = clock.interval() !== undefined;
      clock.setInterval(undefined);
      return had;
    }),
  };
}
