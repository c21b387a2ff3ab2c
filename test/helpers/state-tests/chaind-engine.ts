/**
 * ethereumjs as chaind's block executor runs it: the JUMPDEST analysis cache (a patch of every
 * interpreter in the process, so importing this module ends the stock engine's runs), the word
 * opcodes (CALLDATALOAD, MLOAD, MSTORE, SLOAD), the synchronous steps, and the chain's crypto (native
 * ecrecover, the remembering keccak) on one shared Common per fork, as block-executor.ts builds its
 * VMs. The chain's own Common is not used: the tests need mainnet's fork rules and chain id.
 */
import type { Common } from '@ethereumjs/common';
import type { EVM } from '@ethereumjs/evm';
import { jumpdestCacheInstalled } from '../../../src/execution/jumpdest-cache.ts';
import { ecrecover } from '../../../src/execution/ecrecover.ts';
import { keccak256Memo } from '../../../src/execution/keccak-memo.ts';
import { lazyKzg } from '../../../src/execution/kzg.ts';
import { dropHardforkListeners, sharedCommon } from '../../../src/execution/simulation/common.ts';
import { syncStepsInstalled, useSyncSteps } from '../../../src/execution/sync-steps.ts';
import { installWordOpcodes } from '../../../src/execution/word-opcodes.ts';
import { type Engine, mainnetCommon, markProcessPatched, runOnEthereumjs } from './engine.ts';

markProcessPatched('the chaind engine (jumpdest-cache.ts)');

if (!jumpdestCacheInstalled || !syncStepsInstalled)
  throw new Error('the chaind fast paths are not installed: ethereumjs is not the version they patch');

const commons = new Map<string, Common>();

function forkCommon(fork: string): Common {
  let c = commons.get(fork);
  if (c === undefined) {
    c = sharedCommon(mainnetCommon(fork, { ecrecover, keccak256: keccak256Memo, kzg: lazyKzg }));
    commons.set(fork, c);
  }
  return c;
}

export const chaindEngine: Engine = {
  name: 'chaind',
  run(c) {
    return runOnEthereumjs(c, {
      common: forkCommon,
      prepare(vm) {
        dropHardforkListeners(vm.common);
        if (!installWordOpcodes(vm.evm as EVM)) throw new Error('the word opcodes did not install');
        useSyncSteps(vm.evm);
      },
    });
  },
};
