/**
 * An in-process node for the benchmarks: a fresh home whose genesis funds and associates the given
 * wallets, room for ~1,000 ERC20 transfers per block, every listener on a free port (they stay idle,
 * and a fixed port may be taken on a shared machine), and the producer stopped so the benchmark
 * makes blocks itself.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import { type Genesis, parseGenesis } from '../src/app/genesis.ts';
import { initHome } from '../src/cli/init.ts';
import { loadConfig } from '../src/config/load.ts';
import type { NodeConfig } from '../src/config/schema.ts';
import { accountFromPrivateKey, toAccAddress } from '../src/crypto/accounts.ts';
import { ChainNode } from '../src/node/node.ts';
import type { DevChainOptions } from '../src/node/node-options.ts';
import { toHex } from '../src/primitives/bytes.ts';
import { silentLogger } from '../src/util/logger.ts';
import { FREE_PORT_FLAGS } from '../test/helpers/node.ts';

export const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex.slice(2), 'hex'));

/** `count` wallets with the private keys 1, 2, 3, … */
export function benchWallets(count: number): Wallet[] {
  return Array.from({ length: count }, (_, i) => new Wallet('0x' + (i + 1).toString(16).padStart(64, '0')));
}

export async function startBenchNode(
  home: string,
  wallets: Wallet[],
  flags: Record<string, string> = {},
  opts: {
    /** stores without fsync, as a throwaway dev home (for benches that build long chains) */
    dev?: DevChainOptions;
    /** the genesis block gas limit (default 100M: room for ~1,000 ERC20 transfers per block) */
    maxGas?: bigint;
  } = {},
): Promise<{ node: ChainNode; config: NodeConfig; genesis: Genesis }> {
  const accounts = wallets.map((w) => accountFromPrivateKey(bytes(w.privateKey)));
  initHome({
    home,
    moniker: 'bench',
    chainId: 'bench-1',
    balances: accounts.map((a) => ({ address: toAccAddress(a.cosmosAddress), uchain: 10n ** 15n })),
    associations: accounts.map((a) => ({
      evm_address: toHex(a.evmAddress),
      cosmos_address: toAccAddress(a.cosmosAddress),
    })),
    // the benchmarks measure the pipeline and the RPC under the embedded producer (no CometBFT)
    configure: (cfg) => {
      cfg.config.consensus.engine = 'embedded';
    },
  });
  const genesisPath = join(home, 'config', 'genesis.json');
  const g = JSON.parse(readFileSync(genesisPath, 'utf8'));
  g.consensus_params.block.max_gas = String(opts.maxGas ?? 100_000_000n);
  writeFileSync(genesisPath, JSON.stringify(g));
  const { config } = loadConfig({
    home,
    env: {},
    flags: {
      'consensus.create-empty-blocks': 'false',
      ...FREE_PORT_FLAGS,
      ...flags,
    },
  });
  const genesis = parseGenesis(readFileSync(genesisPath, 'utf8'));
  const node = new ChainNode({
    home,
    config,
    genesis,
    logger: silentLogger,
    ...(opts.dev && { dev: opts.dev }),
  });
  await node.start();
  await node.modules.engine.producer!.stop();
  return { node, config, genesis };
}
