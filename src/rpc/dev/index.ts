/**
 * The dev chain's methods (anvil's and Hardhat's names): accounts and signing, mining control, time,
 * node identity, snapshots and resets. `chaind dev` serves `devMethods` over its producer, chain,
 * pools and dev keys; every other node answers each of these names -32601 saying it is a dev-chain
 * method (`whyDevMethodNotServed`), rather than the bare "does not exist" of a name nobody serves
 * (eth_accounts stays the eth_ namespace's empty list there, as geth's without a keystore).
 */
import type { MethodTable } from '../server/dispatcher.ts';
import type { EvmBackend } from '../evm/backend.ts';
import type { SimulationBackend } from '../evm/simulate.ts';
import { accountMethods } from './accounts.ts';
import type { DevNode } from './backend.ts';
import { identityMethods } from './identity.ts';
import { miningMethods } from './mining.ts';
import { snapshotMethods } from './snapshots.ts';
import { timeMethods } from './time.ts';

export type {
  DevAccounts,
  DevClock,
  DevMining,
  DevMiningMode,
  DevNode,
  DevSigner,
  DevSnapshots,
} from './backend.ts';

export function devMethods(dev: DevNode, backend: EvmBackend, simulation: SimulationBackend): MethodTable {
  return {
    ...accountMethods(dev, backend, simulation),
    ...miningMethods(dev, backend.chain),
    ...timeMethods(dev, backend.chain),
    ...identityMethods(dev, backend.chain),
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
