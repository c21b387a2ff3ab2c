/** What a node is built from: its home, configuration, genesis and logger, and where its data lives. */
import { isAbsolute, resolve } from 'node:path';
import type { StateDump } from '../app/dev-state-dump.ts';
import type { Genesis } from '../app/genesis.ts';
import type { Account } from '../crypto/accounts.ts';
import type { ForkRequest } from '../fork/fork.ts';
import type { NodeConfig } from '../config/schema.ts';
import type { Logger } from '../util/logger.ts';

/** How `chaind dev`'s producer differs from `start`'s. */
export interface DevChainOptions {
  /** ProducerOptions.devLogs */
  logs: boolean;
  /**
   * The home is a throwaway one, removed when the process exits: the stores and logs are not
   * fsynced and the validator's signing state stays in memory, since no restart will ever read them.
   */
  ephemeral?: boolean;
  /** The accounts whose keys the node holds: eth_accounts, eth_sendTransaction and the signing methods. */
  accounts?: readonly Pick<Account, 'evmAddress' | 'privateKey'>[];
  /** Accounts set once the chain has started (`--load-state`), as one state edit. */
  loadState?: StateDump;
  /** Where the node writes its state when it stops (`--dump-state`), in anvil's JSON. */
  dumpStateTo?: string;
  /** `--fork-url`/`--fork-block-number`: the chain's EVM state starts as the remote's (docs/operators/forking.md). */
  fork?: ForkRequest;
}

export interface NodeOptions {
  home: string;
  config: NodeConfig;
  genesis: Genesis;
  logger: Logger;
  /** Set: a local dev chain (`chaind dev`). */
  dev?: DevChainOptions;
}

/** The options with the data directory resolved: what each step of a start reads. */
export interface NodeSetup extends NodeOptions {
  dataDir: string;
}

export function dataDirOf(home: string, config: NodeConfig): string {
  const dir = config.config.dbDir;
  return isAbsolute(dir) ? dir : resolve(home, dir);
}
