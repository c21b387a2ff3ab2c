/**
 * The composition root: builds every module from the loaded configuration and genesis, in
 * dependency order, and runs them under one Lifecycle. Nothing imports this file but the CLI.
 */
import { isAbsolute, join, resolve } from 'node:path';
import type { Genesis } from '../app/genesis.ts';
import type { NodeConfig } from '../config/schema.ts';
import { acquireDirLock, type DirLock } from '../util/dir-lock.ts';
import type { Logger } from '../util/logger.ts';
import { Lifecycle, type Service } from './lifecycle.ts';

export interface NodeOptions {
  home: string;
  config: NodeConfig;
  genesis: Genesis;
  logger: Logger;
}

export function dataDirOf(home: string, config: NodeConfig): string {
  const dir = config.config.dbDir;
  return isAbsolute(dir) ? dir : resolve(home, dir);
}

export class ChainNode {
  readonly dataDir: string;
  private readonly opts: NodeOptions;
  private readonly lifecycle: Lifecycle;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(opts: NodeOptions) {
    this.opts = opts;
    this.dataDir = dataDirOf(opts.home, opts.config);
    this.lifecycle = new Lifecycle(opts.logger.child({ module: 'node' }));
  }

  async start(): Promise<void> {
    const log = this.opts.logger.child({ module: 'node' });
    log.info(
      {
        home: this.opts.home,
        chain_id: this.opts.genesis.chain_id,
        moniker: this.opts.config.config.moniker,
      },
      'starting node',
    );
    await this.lifecycle.start(this.services());
    log.info({ data_dir: this.dataDir }, 'node started');
  }

  async stop(timeoutMs?: number): Promise<boolean> {
    const log = this.opts.logger.child({ module: 'node' });
    log.info('stopping node');
    const clean = await this.lifecycle.stop(timeoutMs);
    log.info({ clean }, 'node stopped');
    return clean;
  }

  private services(): Service[] {
    return [this.dataLock(), this.keepAlive()];
  }

  /** One node per home: the lock on the data directory is taken before any database opens. */
  private dataLock(): Service {
    let lock: DirLock | undefined;
    return {
      name: 'data-lock',
      start: async () => {
        lock = acquireDirLock(this.dataDir);
      },
      stop: async () => lock?.release(),
    };
  }

  /** Until block production exists nothing else holds the event loop open; the node waits for a signal. */
  private keepAlive(): Service {
    return {
      name: 'keep-alive',
      start: async () => {
        this.idleTimer = setInterval(() => {}, 1 << 30);
      },
      stop: async () => clearInterval(this.idleTimer),
    };
  }
}

export function configPath(home: string, file: string): string {
  return join(home, 'config', file);
}
