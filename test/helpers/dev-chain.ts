/** In-process fixtures for execution tests: the dev genesis state in an overlay, dev wallets, the ERC20. */
import { consAddressOf } from '../../src/app/staking/records.ts';
import { readFileSync } from 'node:fs';
import { Wallet, type TransactionRequest } from 'ethers';
import { FEE_COLLECTOR_ADDRESS } from '../../src/app/evm.ts';
import { buildGenesis, type Genesis } from '../../src/app/genesis.ts';
import type { BlockEnv } from '../../src/execution/block-executor.ts';
import { initChainState } from '../../src/app/init-chain.ts';
import { accountsFromMnemonic, toAccAddress, toValoperAddress } from '../../src/crypto/accounts.ts';
import { StateOverlay } from '../../src/state/overlay.ts';

export const DEV_MNEMONIC = 'test test test test test test test test test test test junk';
export const CHAIN_ID = 713714n;
export const devAccounts = accountsFromMnemonic(DEV_MNEMONIC, 10);
export const devWallets = devAccounts.map(
  (a) => new Wallet('0x' + Buffer.from(a.privateKey).toString('hex')),
);

export function devGenesis(opts: { associate?: boolean } = {}): Genesis {
  const g = buildGenesis({
    chainId: 'dev-1',
    moniker: 'dev',
    genesisTime: new Date('2026-01-01T00:00:00Z'),
    validator: {
      address: Buffer.from(consAddressOf(new Uint8Array(32)))
        .toString('hex')
        .toUpperCase(),
      pubKeyBase64: Buffer.alloc(32).toString('base64'),
      operatorAddress: toValoperAddress(devAccounts[0].cosmosAddress),
    },
    balances: devAccounts.map((a) => ({
      address: toAccAddress(a.cosmosAddress),
      uchain: 10_000n * 10n ** 6n,
    })),
    associations:
      opts.associate === false
        ? []
        : devAccounts.map((a) => ({
            evm_address: Buffer.from(a.evmAddress).toString('hex'),
            cosmos_address: toAccAddress(a.cosmosAddress),
          })),
  });
  return g;
}

/** The dev genesis state committed into a plain map, with an overlay on top for the block. */
export function devState(opts: { associate?: boolean } = {}): {
  overlay: StateOverlay;
  committed: Map<string, Uint8Array>;
} {
  const committed = new Map<string, Uint8Array>();
  const id = (s: string, k: Uint8Array) => `${s}:${Buffer.from(k).toString('hex')}`;
  const base = { get: (s: string, k: Uint8Array) => committed.get(id(s, k)) };
  const genesis = new StateOverlay(base);
  initChainState(devGenesis(opts), genesis);
  for (const { store, writes } of genesis.changes())
    for (const w of writes) if (w.value) committed.set(id(store, w.key), w.value);
  return { overlay: new StateOverlay(base), committed };
}

export const artifacts = JSON.parse(
  readFileSync(new URL('../fixtures/contracts/artifacts.json', import.meta.url), 'utf8'),
);

export async function signed(wallet: Wallet, tx: TransactionRequest): Promise<Uint8Array> {
  const raw = await wallet.signTransaction({ chainId: CHAIN_ID, ...tx });
  return Uint8Array.from(Buffer.from(raw.slice(2), 'hex'));
}

/** A block environment for executing transactions over a dev state: height 1, 1 gwei base fee. */
export function devBlockEnv(overrides: Partial<BlockEnv> = {}): BlockEnv {
  return {
    height: 1n,
    timestamp: 1_800_000_000n,
    gasLimit: 30_000_000n,
    baseFee: 10n ** 9n,
    coinbase: FEE_COLLECTOR_ADDRESS,
    parentAppHash: new Uint8Array(32),
    blockHash: () => undefined,
    ...overrides,
  };
}
