/** An in-process node on a temporary home with real lmdb stores, for integration tests. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseGenesis } from '../../src/app/genesis.ts';
import type { StateCommitment } from '../../src/app/genesis.ts';
import { initHome } from '../../src/cli/init.ts';
import { loadConfig } from '../../src/config/load.ts';
import { accountsFromMnemonic, toAccAddress } from '../../src/crypto/accounts.ts';
import { ChainNode } from '../../src/node/node.ts';
import { toHex } from '../../src/primitives/bytes.ts';
import { type Logger, silentLogger } from '../../src/util/logger.ts';
import { readFileSync } from 'node:fs';

export const DEV_ACCOUNTS = accountsFromMnemonic(
  'test test test test test test test test test test test junk',
  10,
);

export function makeHome(
  t: { after(fn: () => void): void },
  stateCommitment: StateCommitment = 'flatkv',
): string {
  const home = mkdtempSync(join(tmpdir(), 'chaind-node-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  initHome({
    home,
    moniker: 'it',
    chainId: 'it-1',
    stateCommitment,
    genesisTime: new Date('2026-01-01T00:00:00Z'),
    operatorAddress: DEV_ACCOUNTS[0].cosmosAddress,
    balances: DEV_ACCOUNTS.map((a) => ({ address: toAccAddress(a.cosmosAddress), uchain: 10_000_000_000n })),
    associations: DEV_ACCOUNTS.map((a) => ({
      evm_address: toHex(a.evmAddress),
      cosmos_address: toAccAddress(a.cosmosAddress),
    })),
  });
  return home;
}

/** Every listener of an in-process node on a free port (127.0.0.1), as config flags. */
export const FREE_PORT_FLAGS = {
  'evm.http_port': '0',
  'evm.ws_port': '0',
  'api.address': 'tcp://127.0.0.1:0',
  'grpc.address': '127.0.0.1:0',
  'rpc.laddr': 'tcp://127.0.0.1:0',
  'instrumentation.prometheus-listen-addr': '127.0.0.1:0',
};

export async function startNode(
  home: string,
  flags: Record<string, string> = {},
  logger: Logger = silentLogger,
): Promise<ChainNode> {
  const { config } = loadConfig({
    home,
    env: {},
    flags: {
      'consensus.engine': 'embedded',
      'consensus.timeout-commit': '30ms',
      'state-store.ss-async-write-buffer': '0',
      // free ports, so nodes of concurrently running test files do not contend for 8545
      ...FREE_PORT_FLAGS,
      ...flags,
    },
  });
  const genesis = parseGenesis(readFileSync(join(home, 'config', 'genesis.json'), 'utf8'));
  const node = new ChainNode({ home, config, genesis, logger });
  await node.start();
  return node;
}

/** Resolves when `predicate` holds, polling every 20 ms; rejects after `ms`. */
export async function until<T>(predicate: () => T | undefined | false, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = predicate();
    if (v) return v;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
