/**
 * A home whose chain is a fork (`chaind dev --fork-url`): the fork target recorded in the data
 * directory (`fork/fork.json`: the remote's URL, the fork block's number and hash, the remote's chain
 * id), the cache of what was read from the remote (`fork/cache`), and the state that joins them to the
 * local stores (forked-state.ts). The target is fixed when the chain is created: every later start of
 * the home reads the same block (a restart's replay must read what the first execution read).
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openLmdbStore } from '../storage/kv/lmdb.ts';
import { ChainError } from '../util/errors.ts';
import type { Logger } from '../util/logger.ts';
import { ForkCache } from './cache.ts';
import { ForkedState } from './forked-state.ts';
import { ForkRemote, remoteCall } from './remote.ts';

/** What a fork reads: the remote chain at one block. */
export interface ForkTarget {
  url: string;
  blockNumber: number;
  /** The fork block's hash, to tell the same chain from another at a later start. */
  blockHash: string;
  /** The remote's EVM chain id (eth_chainId), decimal. */
  chainId: string;
}

/** What the operator asked for: a URL, and a block (absent: the remote's latest). */
export interface ForkRequest {
  url: string;
  blockNumber?: number;
  /** Already resolved (the CLI resolves it to create the genesis with the remote's chain id). */
  target?: ForkTarget;
}

const RECORD = 'fork.json';

/** The fork block and the remote's chain id, asked of the remote. */
export async function resolveForkTarget(url: string, blockNumber?: number): Promise<ForkTarget> {
  const chainId = BigInt(String(await remoteCall(url, 'eth_chainId', [])));
  const tag = blockNumber === undefined ? 'latest' : '0x' + blockNumber.toString(16);
  const block = (await remoteCall(url, 'eth_getBlockByNumber', [tag, false])) as {
    number?: string;
    hash?: string;
  } | null;
  if (!block?.number || !block.hash)
    throw new ChainError(
      'BAD_ARGUMENT',
      `--fork-block-number ${blockNumber}: the remote ${url} has no such block`,
    );
  return {
    url,
    blockNumber: Number(BigInt(block.number)),
    blockHash: block.hash,
    chainId: chainId.toString(),
  };
}

export class Fork {
  readonly dir: string;
  private current: ForkTarget;
  private remote: ForkRemote;
  readonly cache: ForkCache;
  readonly state: ForkedState;

  constructor(dir: string, target: ForkTarget, cache: ForkCache) {
    this.dir = dir;
    this.current = target;
    this.remote = new ForkRemote(target.url);
    this.cache = cache;
    this.state = new ForkedState(this.remote, target.blockNumber, cache);
  }

  get target(): ForkTarget {
    return this.current;
  }

  /** JSON-RPC requests sent to the remote so far (each batch once). */
  get remoteRequests(): number {
    return this.remote.requests;
  }

  /**
   * Forks another remote or block from now on, forgetting every cached value: for a reset
   * (`anvil_reset`/`hardhat_reset` with forking parameters), whose caller must also return the local
   * stores to genesis, since blocks executed on the old target cannot replay on the new one.
   */
  async retarget(request: ForkRequest): Promise<ForkTarget> {
    const target = request.target ?? (await resolveForkTarget(request.url, request.blockNumber));
    await this.cache.clear();
    const old = this.remote;
    this.remote = new ForkRemote(target.url);
    this.state.retarget(this.remote, target.blockNumber);
    this.current = target;
    writeRecord(this.dir, target);
    await old.close();
    return target;
  }

  async close(): Promise<void> {
    try {
      await this.cache.close();
    } finally {
      await this.remote.close();
    }
  }
}

/**
 * The home's fork, if its chain is one: the recorded target, or, for a new chain, the requested one
 * (recorded now). A request on a home forked at another block, or on a chain that is not a fork, is
 * refused; a new URL for the same block is taken (another endpoint of the same remote chain).
 */
export async function openFork(
  dataDir: string,
  request: ForkRequest | undefined,
  logger: Logger,
  durable = true,
): Promise<Fork | undefined> {
  const dir = join(dataDir, 'fork');
  const recorded = readRecord(dir);
  if (!recorded && !request) return undefined;
  const log = logger.child({ module: 'fork' });
  let target: ForkTarget;
  if (recorded) {
    target = recorded;
    if (request && request.blockNumber !== undefined && request.blockNumber !== recorded.blockNumber)
      throw new ChainError(
        'CONFIG_INVALID',
        `this home's chain is a fork of block ${recorded.blockNumber}, not ${request.blockNumber}: a fork of another block needs a new home`,
      );
    if (request && request.url !== recorded.url) {
      log.info({ was: recorded.url, now: request.url }, 'fork remote URL changed');
      target = { ...recorded, url: request.url };
    }
  } else {
    if (existsSync(join(dataDir, 'state_commit')))
      throw new ChainError(
        'CONFIG_INVALID',
        `--fork-url: this home already holds a chain that is not a fork (${dataDir}); a fork needs a new home`,
      );
    target = request!.target ?? (await resolveForkTarget(request!.url, request!.blockNumber));
  }
  mkdirSync(dir, { recursive: true });
  if (target !== recorded) writeRecord(dir, target);
  const db = await openLmdbStore(join(dir, 'cache'), { sync: durable });
  const fork = new Fork(dir, target, new ForkCache(db));
  log.info(
    { url: target.url, block: target.blockNumber, hash: target.blockHash, chain_id: target.chainId },
    'forked state: accounts, code and storage are read from the remote at the fork block on first use',
  );
  return fork;
}

function readRecord(dir: string): ForkTarget | undefined {
  const path = join(dir, RECORD);
  if (!existsSync(path)) return undefined;
  const r = JSON.parse(readFileSync(path, 'utf8')) as Partial<ForkTarget>;
  if (
    typeof r.url !== 'string' ||
    !Number.isSafeInteger(r.blockNumber) ||
    typeof r.blockHash !== 'string' ||
    typeof r.chainId !== 'string'
  )
    throw new ChainError('CONFIG_INVALID', `${path} is not a fork record: remove the home and fork again`);
  return r as ForkTarget;
}

function writeRecord(dir: string, target: ForkTarget): void {
  const path = join(dir, RECORD);
  writeFileSync(path + '.tmp', JSON.stringify(target, null, 2) + '\n');
  renameSync(path + '.tmp', path);
}
