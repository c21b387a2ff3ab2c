/**
 * `chaind dev` (`npm start`): a one-command local chain. It initialises a throw-away home whose genesis
 * prefunds the ten well-known accounts of the standard test mnemonic, starts the node, and prints one
 * screen with everything a user's tools need. Blocks come on demand by default (docs/adr/0020-dev-mining-on-demand.md).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeStateDump, type StateDump } from '../app/dev-state-dump.ts';
import type { StateCommitment } from '../app/genesis.ts';
import { accountsFromMnemonic, toAccAddress, toChecksumAddress } from '../crypto/accounts.ts';
import { toHex } from '../primitives/bytes.ts';
import { UCHAIN_PER_TOKEN } from '../primitives/identity.ts';
import { formatDuration, parseDuration } from '../config/fields.ts';
import { type ForkRequest, resolveForkTarget } from '../fork/fork.ts';
import { ChainError } from '../util/errors.ts';
import { initHome } from './init.ts';
import { startNode } from './start.ts';
import type { ChainNode } from '../node/node.ts';
import { blockEngine, REVM_HOWTO } from '../execution/block-engine.ts';

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

function readStateDump(path: string): StateDump {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ChainError('CONFIG_INVALID', `--load-state ${path}: ${(err as Error).message}`);
  }
  try {
    return decodeStateDump(text);
  } catch (err) {
    throw new ChainError('CONFIG_INVALID', `--load-state ${path}: ${(err as Error).message}`);
  }
}

/** How the dev chain makes blocks. */
export type DevMining = { kind: 'on-demand' } | { kind: 'interval'; ms: number } | { kind: 'configured' };

/** The `[consensus]` keys that set block timing; given as flags, they are used as `start` uses them. */
const TIMING_FLAGS = [
  'consensus.timeout-commit',
  'consensus.create-empty-blocks',
  'consensus.create-empty-blocks-interval',
];

/**
 * The mining mode of `--block-time` (absent or 0: on demand) and the flags that set it. Explicit
 * `--consensus.*` timing flags keep their `start` meaning (and its log), so a home configured for a
 * block rate runs as configured.
 */
export function devMining(
  blockTime: string | undefined,
  flags: Record<string, string>,
): { mining: DevMining; flags: Record<string, string> } {
  const explicit = TIMING_FLAGS.filter((f) => flags[f] !== undefined);
  if (explicit.length > 0) {
    if (blockTime !== undefined) {
      throw new ChainError(
        'CONFIG_INVALID',
        `--block-time and --${explicit[0]} both set the block timing: give one of them`,
      );
    }
    return { mining: { kind: 'configured' }, flags };
  }
  const ms = blockTime === undefined ? 0 : parseDuration(blockTime);
  if (ms === undefined || !Number.isFinite(ms) || ms < 0) {
    throw new ChainError(
      'CONFIG_INVALID',
      `--block-time ${JSON.stringify(blockTime)} is not a duration: give one such as "1s" or "400ms" (0 or none: a block as soon as transactions wait)`,
    );
  }
  if (ms === 0) {
    return {
      mining: { kind: 'on-demand' },
      flags: { 'consensus.timeout-commit': '0s', 'consensus.create-empty-blocks': 'false', ...flags },
    };
  }
  return {
    mining: { kind: 'interval', ms },
    flags: {
      'consensus.timeout-commit': formatDuration(ms),
      'consensus.create-empty-blocks': 'true',
      ...flags,
    },
  };
}

function miningLine(m: DevMining): string {
  switch (m.kind) {
    case 'on-demand':
      return 'Mining: on demand, a block as soon as transactions wait (a tx is answered once mined; --block-time 1s: a block every second)';
    case 'interval':
      return `Mining: a block every ${formatDuration(m.ms)} (--block-time), empty or not`;
    case 'configured':
      return 'Mining: as the --consensus.* flags say';
  }
}

/** Where a forked chain's state comes from, and how its block numbers relate to the remote's. */
function forkLines(node: ChainNode): string[] {
  const target = node.modules.fork?.target;
  if (!target) return [];
  return [
    `Forked from ${target.url} at block ${target.blockNumber} (${target.blockHash}); local blocks count from 1`,
  ];
}

/** The dev chain's one screen: where to connect, the accounts, and the keys' derivation paths. */
export function devBanner(
  node: ChainNode,
  accounts: ReturnType<typeof accountsFromMnemonic>,
  mining: DevMining,
): string {
  const m = node.modules;
  const evmChainId = BigInt(node.genesis.app_state.evm.params.chain_id);
  const rows: [string, string | undefined][] = [
    ['EVM JSON-RPC', m.evmHttp?.url],
    ['EVM WebSocket', m.evmWs?.url],
    ['consensus RPC', m.consensusRpc.url.replace('tcp://', 'http://')],
    ['REST', m.rest?.url.replace('tcp://', 'http://')],
    ['gRPC', m.grpc?.address],
  ];
  const rule = '='.repeat(100);
  return [
    rule,
    `EVM chain id ${evmChainId} (0x${evmChainId.toString(16)}); Cosmos chain id ${node.genesis.chain_id}`,
    ...forkLines(node),
    ...rows.filter(([, url]) => url).map(([name, url]) => `  ${name.padEnd(14)} ${url}`),
    miningLine(mining),
    ...engineLines(),
    '',
    `Accounts (${DEV_TOKENS_PER_ACCOUNT} tokens each; one secp256k1 key per account signs for both its addresses):`,
    ...accounts.map(
      (a, i) =>
        `  (${i}) ${toChecksumAddress(a.evmAddress)}  ${toAccAddress(a.cosmosAddress)}  key 0x${toHex(a.privateKey)}`,
    ),
    '',
    `Mnemonic: ${DEV_MNEMONIC}`,
    "HD path of account n, for both addresses: m/44'/60'/0'/0/n (the Ethereum path)",
    "  ethers, Hardhat, viem, MetaMask: their default path (ethers: HDNodeWallet.fromPhrase(mnemonic, undefined, \"m/44'/60'/0'/0/n\"))",
    '  CosmJS: DirectSecp256k1HdWallet.fromMnemonic(mnemonic, { prefix: "chain", hdPaths: [stringToPath("m/44\'/60\'/0\'/0/0")] })',
    "    (stringToPath from @cosmjs/crypto; CosmJS's default makeCosmoshubPath(n) = m/44'/118'/0'/0/n derives other, unfunded addresses),",
    '    or DirectSecp256k1Wallet.fromKey(<the key above as bytes>, "chain")',
    rule,
    '',
  ].join('\n');
}

/** Which EVM runs blocks, and on ethereumjs how to get revm. */
function engineLines(): string[] {
  const e = blockEngine();
  if (e.name === 'revm') return ['  block EVM      revm (native)'];
  return [`  block EVM      ethereumjs (${e.reason})`, `                 for revm: ${REVM_HOWTO}`];
}

export interface DevOptions {
  home?: string;
  stateCommitment?: StateCommitment;
  /** `--block-time`: a Go-style duration; absent or 0: on-demand mining. */
  blockTime?: string;
  /** `--load-state`: a state dump to set once started. */
  loadState?: string;
  /** `--dump-state`: where to write the state at stop. */
  dumpState?: string;
  /** `--fork-url`: the chain's EVM state starts as this remote's (docs/operators/forking.md). */
  forkUrl?: string;
  /** `--fork-block-number`: the remote's block to fork (default: its latest). */
  forkBlockNumber?: number;
  flags: Record<string, string>;
}

/** The remote's chain id as a genesis can hold it (below 2^53), or chaind dev's own. */
function forkChainId(chainId: string): number | undefined {
  const id = BigInt(chainId);
  return id > 0n && id < 2n ** 53n ? Number(id) : undefined;
}

export async function runDev(o: DevOptions): Promise<void> {
  const { mining, flags } = devMining(o.blockTime, o.flags);
  // read before anything starts: a dump that does not load stops the command with the reason
  const loadState = o.loadState === undefined ? undefined : readStateDump(o.loadState);
  if (o.forkBlockNumber !== undefined && o.forkUrl === undefined)
    throw new ChainError('CONFIG_INVALID', '--fork-block-number needs --fork-url');
  let fork: ForkRequest | undefined =
    o.forkUrl === undefined ? undefined : { url: o.forkUrl, blockNumber: o.forkBlockNumber };
  const fresh = o.home === undefined || !existsSync(join(o.home, 'config', 'genesis.json'));
  // a new fork takes the remote's EVM chain id, as anvil does: wallets and scripts configured for the
  // remote chain sign for the fork unchanged (asked before any home is made: a remote that does not
  // answer leaves nothing behind)
  if (fork && fresh) fork = { ...fork, target: await resolveForkTarget(fork.url, fork.blockNumber) };
  const ephemeral = o.home === undefined;
  const home = o.home ?? mkdtempSync(join(tmpdir(), 'chaind-dev-'));
  const accounts = accountsFromMnemonic(DEV_MNEMONIC, DEV_ACCOUNT_COUNT);
  if (fresh) {
    initHome({
      home,
      moniker: 'dev',
      chainId: DEV_CHAIN_ID,
      evmChainId: fork?.target && forkChainId(fork.target.chainId),
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
  process.stdout.write(`chaind dev chain — home ${home}${ephemeral ? ' (removed on exit)' : ''}\n`);
  if (ephemeral) process.on('exit', () => rmSync(home, { recursive: true, force: true }));
  // the dev chain is a lone validator without CometBFT (no Go needed), whatever the home says;
  // its log shows the user's txs rather than every empty block, unless the timing is configured
  const node = await startNode({
    home,
    flags: { ...flags, 'consensus.engine': 'embedded' },
    dev: {
      logs: mining.kind !== 'configured',
      ephemeral,
      accounts,
      fork,
      ...(loadState && { loadState }),
      ...(o.dumpState !== undefined && { dumpStateTo: o.dumpState }),
    },
  });
  // the banner says the chain is ready: block 1 is there (the consensus RPC's /status names it)
  const { chain } = node.modules;
  if (chain.latestHeight === 0) {
    await new Promise<void>((resolve) => {
      const off = chain.onBlock(() => {
        off();
        resolve();
      });
    });
  }
  // a signal during the wait stops the node, whose listeners then have no addresses to print
  if (!node.stopping) process.stdout.write(devBanner(node, accounts, mining) + '\n');
}
