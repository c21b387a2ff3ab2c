/**
 * `eth_config` (EIP-7910) as geth 1.16 answers it: `{current, next, last}`, each fork's
 * `{activationTime, blobSchedule, chainId, forkId, precompiles, systemContracts}` or null.
 *
 * The chain runs Prague from genesis and schedules no fork after it, so `current` is Prague and
 * `next` and `last` are null (geth's `last` is null too when no fork is scheduled).
 */
import { crc32 } from 'node:zlib';
import { data, quantity } from '../codecs/hex.ts';
import { method, type MethodTable } from '../server/dispatcher.ts';
import type { ChainReader } from './backend.ts';
import { HeightPrunedError } from './resolve.ts';

const at = (n: number) => '0x' + n.toString(16).padStart(40, '0');

/**
 * Every precompile Prague activates, under the names geth gives them (`PrecompiledContract.Name`),
 * sorted as geth's JSON writes a map. The EVM runs with exactly these (a unit test compares the
 * addresses with the ones the chain's EVM activates).
 */
export const PRAGUE_PRECOMPILES: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries(
    (
      [
        ['ECREC', 1],
        ['SHA256', 2],
        ['RIPEMD160', 3],
        ['ID', 4],
        ['MODEXP', 5],
        ['BN254_ADD', 6],
        ['BN254_MUL', 7],
        ['BN254_PAIRING', 8],
        ['BLAKE2F', 9],
        ['KZG_POINT_EVALUATION', 0x0a],
        ['BLS12_G1ADD', 0x0b],
        ['BLS12_G1MSM', 0x0c],
        ['BLS12_G2ADD', 0x0d],
        ['BLS12_G2MSM', 0x0e],
        ['BLS12_PAIRING_CHECK', 0x0f],
        ['BLS12_MAP_FP_TO_G1', 0x10],
        ['BLS12_MAP_FP2_TO_G2', 0x11],
      ] as const
    )
      .map(([name, n]) => [name, at(n)] as const)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  ),
);

/**
 * EIP-6122's fork hash: CRC32 of the genesis hash, then of each passed fork's activation block or
 * time. Forks active at genesis are left out (geth's gatherForks drops them), and every fork of this
 * chain is, so the hash is the genesis hash's alone.
 */
export function forkHash(genesisHash: Uint8Array): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, crc32(genesisHash));
  return out;
}

export interface ForkConfig {
  activationTime: number;
  blobSchedule: null;
  chainId: string;
  forkId: string;
  precompiles: Record<string, string>;
  systemContracts: Record<string, string>;
}

export function ethConfigMethods(chain: ChainReader): MethodTable {
  let genesisHash: Uint8Array | undefined;
  const current = (): ForkConfig => {
    // Block 0's hash is fixed for the chain's life, but known only while block 1 (which carries the
    // genesis app hash) is stored or was read once by this process.
    genesisHash ??= chain.blockContext(0)?.hash;
    if (!genesisHash) {
      throw new HeightPrunedError(0, chain.earliestBlockHeight(), 'block (its hash is the fork id)');
    }
    return {
      // geth answers 0 for a fork active at genesis, whatever the genesis time.
      activationTime: 0,
      // The chain refuses blob txs (no blob pool, no blob data availability): there is no blob
      // target, max or update fraction to report, and geth writes a fork without one as null.
      blobSchedule: null,
      chainId: quantity(chain.chainId),
      forkId: data(forkHash(genesisHash)),
      precompiles: { ...PRAGUE_PRECOMPILES },
      // No block runs EIP-4788's, EIP-2935's, EIP-7002's or EIP-7251's system calls, and genesis
      // puts no code at their addresses (nor a deposit contract: validators are CometBFT's), so
      // naming those addresses would tell a client to read state that is never written.
      systemContracts: {},
    };
  };
  return {
    eth_config: method([], () => ({ current: current(), next: null, last: null })),
  };
}
