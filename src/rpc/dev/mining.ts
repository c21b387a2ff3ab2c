/**
 * Mining control as anvil and Hardhat serve it: mine now (one block, or many at an interval), turn
 * automine and interval mining on and off, drop a pooled tx. Answers are anvil's (null where anvil
 * answers nothing) except under the `hardhat_` names, which answer as Hardhat does.
 */
import { hash32 } from '../codecs/hex.ts';
import { optional, p } from '../codecs/params.ts';
import { method, type MethodTable } from '../server/dispatcher.ts';
import { InvalidParamsError } from '../server/errors.ts';
import type { ChainReader } from '../evm/backend.ts';
import type { DevNode } from './backend.ts';
import { uint } from './params.ts';
import { assertNotBeforeLatest } from './time.ts';

export function miningMethods(dev: DevNode, chain: ChainReader): MethodTable {
  const { mining } = dev;
  const mineBlocks = async (blocks: number | undefined, interval: number | undefined) => {
    const count = blocks ?? 1;
    if (count < 1) throw new InvalidParamsError('the number of blocks to mine must be at least 1');
    await mining.mine(count, interval);
  };
  const setAutomine = method([p.bool], (on) => {
    mining.setMode({ ...mining.mode(), automine: on });
    return null;
  });
  // seconds, as anvil takes them (Hardhat's evm_setIntervalMining takes milliseconds)
  const setIntervalMining = method([uint], (seconds) => {
    mining.setMode({ ...mining.mode(), intervalMs: seconds * 1000 });
    return null;
  });
  const getAutomine = method([], () => mining.mode().automine);
  return {
    evm_mine: method([optional(uint)], async (timestamp) => {
      if (timestamp !== undefined) {
        assertNotBeforeLatest(chain, timestamp);
        dev.clock.setNext(timestamp);
      }
      await mining.mine(1);
      return '0x0';
    }),
    hardhat_mine: method([optional(uint), optional(uint)], async (blocks, interval) => {
      await mineBlocks(blocks, interval ?? 1);
      return true;
    }),
    anvil_mine: method([optional(uint), optional(uint)], async (blocks, interval) => {
      await mineBlocks(blocks, interval);
      return null;
    }),
    evm_setAutomine: setAutomine,
    anvil_setAutomine: setAutomine,
    evm_setIntervalMining: setIntervalMining,
    anvil_setIntervalMining: setIntervalMining,
    hardhat_getAutomine: getAutomine,
    anvil_getAutomine: getAutomine,
    hardhat_dropTransaction: method([p.hash], (hash) => dev.dropTransaction(hash)),
    anvil_dropTransaction: method([p.hash], (hash) => (dev.dropTransaction(hash) ? hash32(hash) : null)),
  };
}
