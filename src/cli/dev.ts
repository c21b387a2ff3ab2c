/**
 * `chaind dev` (`npm start`): a one-command local chain. It initialises a throw-away home whose genesis
 * prefunds the ten well-known accounts of the standard test mnemonic, prints them, and starts the node.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StateCommitment } from '../app/genesis.ts';
import { accountsFromMnemonic, toAccAddress, toChecksumAddress } from '../crypto/accounts.ts';
import { toHex } from '../primitives/bytes.ts';
import { UCHAIN_PER_TOKEN } from '../primitives/identity.ts';
import { initHome } from './init.ts';
import { startNode } from './start.ts';
import type { ChainNode } from '../node/node.ts';

export const DEV_MNEMONIC = 'test test test test test test test test test test test junk';
export const DEV_ACCOUNT_COUNT = 10;
export const DEV_TOKENS_PER_ACCOUNT = 10_000n;
export const DEV_CHAIN_ID = 'chaind-dev';
/**
 * The dev chain's block gas limit: room for what arrives in one block interval under a burst
 * (docs/adr/0018-dev-block-gas-limit.md). Blocks are filled by declared gas limits, which
 * tools set well above what a call uses.
 */
export const DEV_BLOCK_MAX_GAS = 120_000_000n;

/**
 * The dev accounts in a genesis: funded, and, because their keys are public, their two addresses
 * linked from the start, so their EVM balances are visible before their first transaction.
 */
export function devAccountsGenesis(accounts: ReturnType<typeof accountsFromMnemonic>) {
  return {
    balances: accounts.map((a) => ({
      address: toAccAddress(a.cosmosAddress),
      uchain: DEV_TOKENS_PER_ACCOUNT * UCHAIN_PER_TOKEN,
    })),
    associations: accounts.map((a) => ({
      evm_address: toHex(a.evmAddress),
      cosmos_address: toAccAddress(a.cosmosAddress),
    })),
  };
}

/** Where a user's tools connect, once every listener is bound (port 0 picks one). */
function endpoints(node: ChainNode): string {
  const m = node.modules;
  const evmChainId = BigInt(node.genesis.app_state.evm.params.chain_id);
  const rows: [string, string | undefined][] = [
    ['EVM JSON-RPC', m.evmHttp?.url],
    ['EVM WebSocket', m.evmWs?.url],
    ['consensus RPC', m.consensusRpc.url.replace('tcp://', 'http://')],
    ['REST', m.rest?.url.replace('tcp://', 'http://')],
    ['gRPC', m.grpc?.address],
  ];
  return [
    `EVM chain id ${evmChainId} (0x${evmChainId.toString(16)}); Cosmos chain id ${node.genesis.chain_id}`,
    ...rows.filter(([, url]) => url).map(([name, url]) => `  ${name.padEnd(14)} ${url}`),
    "Keys: each account's one secp256k1 key (HD path m/44'/60'/0'/0/<n> of the mnemonic) signs for both",
    'addresses: use it as is in CosmJS (DirectSecp256k1Wallet.fromKey, prefix "chain"), not the m/44\'/118\' path.',
    '',
  ].join('\n');
}

export interface DevOptions {
  home?: string;
  stateCommitment?: StateCommitment;
  flags: Record<string, string>;
}

export async function runDev(o: DevOptions): Promise<void> {
  const ephemeral = o.home === undefined;
  const home = o.home ?? mkdtempSync(join(tmpdir(), 'chaind-dev-'));
  const accounts = accountsFromMnemonic(DEV_MNEMONIC, DEV_ACCOUNT_COUNT);
  if (!existsSync(join(home, 'config', 'genesis.json'))) {
    initHome({
      home,
      moniker: 'dev',
      chainId: DEV_CHAIN_ID,
      stateCommitment: o.stateCommitment,
      operatorAddress: accounts[0].cosmosAddress,
      blockMaxGas: DEV_BLOCK_MAX_GAS,
      ...devAccountsGenesis(accounts),
      // A local dev chain is called from dapps in the developer's browser, as anvil and Hardhat
      // allow; a node made with `init` sends no CORS headers until its operator lists origins.
      configure: (cfg) => {
        cfg.config.consensus.engine = 'embedded';
        cfg.app.evm.corsOrigins = '*';
      },
    });
  }
  const lines = [
    `chaind dev chain — home ${home}${ephemeral ? ' (removed on exit)' : ''}`,
    `Mnemonic: ${DEV_MNEMONIC}`,
    `Accounts (${DEV_TOKENS_PER_ACCOUNT} tokens each):`,
    ...accounts.map(
      (a, i) =>
        `  (${i}) ${toChecksumAddress(a.evmAddress)}  ${toAccAddress(a.cosmosAddress)}  key 0x${toHex(a.privateKey)}`,
    ),
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
  if (ephemeral) process.on('exit', () => rmSync(home, { recursive: true, force: true }));
  // the dev chain is a lone validator without CometBFT (no Go needed), whatever the home says
  const node = await startNode({ home, flags: { ...o.flags, 'consensus.engine': 'embedded' } });
  process.stdout.write(endpoints(node) + '\n');
}
