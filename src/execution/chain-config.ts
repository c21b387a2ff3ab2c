/**
 * The `@ethereumjs/common` instance of our chain: a custom chain with the genesis EVM chain id whose
 * hardforks all activate at genesis, up to Prague (or Osaka when enabled), with native ecrecover, a
 * keccak that remembers short preimages (keccak-memo.ts) and KZG for point evaluation (kzg.ts).
 *
 * Every hardfork is scheduled at block 0 / timestamp 0 (rather than inheriting mainnet's schedule) so
 * that `setHardforkBy({ blockNumber, timestamp })`, which the VM and block builder may call, always
 * lands on our target hardfork instead of on whatever mainnet ran at that height.
 */
import { type ChainConfig, Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { ecrecover } from './ecrecover.ts';
import { keccak256Memo } from './keccak-memo.ts';
import { lazyKzg } from './kzg.ts';

export { Common, Hardfork };

export interface ChainCommonOptions {
  /** EVM chain id (genesis `app_state.evm.params.chain_id`). */
  chainId: bigint;
  /** Activate Osaka on top of Prague (EIP-7825 tx gas cap, EIP-7939 CLZ, …). Default false. */
  osaka?: boolean;
}

/**
 * Fee-market, access lists, set-code and transient storage. All are part of Prague already; they are
 * listed so that `isActivatedEIP` stays true for them even if a future hardfork table shuffles them.
 */
export const CHAIN_EIPS: readonly number[] = [1559, 2930, 7702, 1153];

/** Mainnet forks in activation order, minus the ones that are not rule changes. */
const NOT_RULE_CHANGES = new Set(['dao', 'mergeNetsplitBlock']);

function hardforkSchedule(target: Hardfork): ChainConfig['hardforks'] {
  const out: ChainConfig['hardforks'] = [];
  for (const hf of Mainnet.hardforks) {
    if (NOT_RULE_CHANGES.has(hf.name)) continue;
    // Pre-merge forks are block-scheduled, post-merge ones time-scheduled; keep each on its own axis.
    out.push(
      hf.timestamp === undefined ? { name: hf.name, block: 0 } : { name: hf.name, block: null, timestamp: 0 },
    );
    if (hf.name === target) return out;
  }
  throw new Error(`hardfork ${target} not in the mainnet schedule`);
}

export function createChainCommon(opts: ChainCommonOptions): Common {
  if (opts.chainId <= 0n) throw new RangeError(`EVM chain id must be positive, got ${opts.chainId}`);
  const hardfork = opts.osaka ? Hardfork.Osaka : Hardfork.Prague;
  const chain: ChainConfig = {
    ...Mainnet,
    name: 'chaind',
    // Common deep-copies the chain config through JSON, which cannot carry a bigint.
    chainId: opts.chainId.toString(),
    defaultHardfork: hardfork,
    comment: 'chaind EVM',
    url: '',
    consensus: { type: 'pos', algorithm: 'casper' },
    bootstrapNodes: [],
    dnsNetworks: [],
    hardforks: hardforkSchedule(hardfork),
  };
  return new Common({
    chain,
    hardfork,
    eips: [...CHAIN_EIPS],
    customCrypto: { ecrecover, keccak256: keccak256Memo, kzg: lazyKzg },
  });
}
