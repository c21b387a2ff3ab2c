/**
 * The dev chain's methods (anvil's and Hardhat's names): accounts and signing, mining control, time,
 * node identity, state edits, impersonation, state dumps, snapshots and resets. `chaind dev` serves
 * `devMethods` over its producer, chain, pools and dev keys; every other node answers each of these
 * names -32601 saying it is a dev-chain method (`whyDevMethodNotServed`), rather than the bare "does
 * not exist" of a name nobody serves (eth_accounts stays the eth_ namespace's empty list there, as
 * geth's without a keystore).
 */
import type { MethodTable } from '../server/dispatcher.ts';
import type { EvmBackend } from '../evm/backend.ts';
import type { SimulationBackend } from '../evm/simulate.ts';
import { accountMethods } from './accounts.ts';
import type { DevNode } from './backend.ts';
import { dumpMethods } from './dump.ts';
import { identityMethods } from './identity.ts';
import { impersonationMethods } from './impersonation.ts';
import { stateMethods } from './state.ts';
import { miningMethods } from './mining.ts';
import { snapshotMethods } from './snapshots.ts';
import { timeMethods } from './time.ts';

export type {
  DevAccounts,
  DevClock,
  DevForkRequest,
  DevImpersonation,
  DevMining,
  DevMiningMode,
  DevNode,
  DevSigner,
  DevState,
  DevStateEdit,
  StateDump,
  DevSnapshots,
} from './backend.ts';

export function devMethods(dev: DevNode, backend: EvmBackend, simulation: SimulationBackend): MethodTable {
  return {
    ...accountMethods(dev, backend, simulation),
    ...miningMethods(dev, backend.chain),
    ...timeMethods(dev, backend.chain),
    ...identityMethods(dev, backend.chain),
    ...stateMethods(dev),
    ...impersonationMethods(dev),
    ...dumpMethods(dev),
    ...snapshotMethods(dev),
  };
}

/** Names served only by `chaind dev` (not the eth_ ones every node has). */
const DEV_ONLY = [
  'eth_sendTransaction',
  'eth_signTransaction',
  'eth_sign',
  'personal_sign',
  'eth_signTypedData_v4',
  'evm_mine',
  'hardhat_mine',
  'anvil_mine',
  'evm_setAutomine',
  'anvil_setAutomine',
  'evm_setIntervalMining',
  'anvil_setIntervalMining',
  'hardhat_getAutomine',
  'anvil_getAutomine',
  'hardhat_dropTransaction',
  'anvil_dropTransaction',
  'evm_increaseTime',
  'anvil_increaseTime',
  'evm_setNextBlockTimestamp',
  'anvil_setNextBlockTimestamp',
  'anvil_setBlockTimestampInterval',
  'anvil_removeBlockTimestampInterval',
  'hardhat_metadata',
  'anvil_nodeInfo',
  'hardhat_setBalance',
  'anvil_setBalance',
  'anvil_addBalance',
  'hardhat_setCode',
  'anvil_setCode',
  'hardhat_setNonce',
  'anvil_setNonce',
  'hardhat_setStorageAt',
  'anvil_setStorageAt',
  'hardhat_setNextBlockBaseFeePerGas',
  'anvil_setNextBlockBaseFeePerGas',
  'evm_setBlockGasLimit',
  'hardhat_setCoinbase',
  'anvil_setCoinbase',
  'hardhat_setPrevRandao',
  'hardhat_setMinGasPrice',
  'anvil_setMinGasPrice',
  'hardhat_impersonateAccount',
  'anvil_impersonateAccount',
  'hardhat_stopImpersonatingAccount',
  'anvil_stopImpersonatingAccount',
  'anvil_autoImpersonateAccount',
  'anvil_dumpState',
  'anvil_loadState',
  'evm_snapshot',
  'anvil_snapshot',
  'evm_revert',
  'anvil_revert',
  'hardhat_reset',
  'anvil_reset',
] as const;

const DEV_ONLY_NAMES = new Set<string>(DEV_ONLY);

/** For a node without the dev chain's methods: why one of them is not served (-32601's message). */
export function whyDevMethodNotServed(name: string): string | undefined {
  return DEV_ONLY_NAMES.has(name)
    ? `the method ${name} is a dev-chain method: only a local dev chain (\`chaind dev\`, \`npm start\`) serves it`
    : undefined;
}

/** For tests: the names only a dev chain serves. */
export const DEV_ONLY_METHODS: readonly string[] = DEV_ONLY;
