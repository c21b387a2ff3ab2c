/**
 * The engine that decides this node's blocks, and where the RPCs submit transactions: both are chosen
 * here, once. Today the only engine is the embedded single-validator producer, with submissions
 * admitted into the local mempools; a network engine is one more branch of `createEngine`, returning
 * its own Engine and TxSubmission (its mempool, which checks each tx with the same admission).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Genesis } from '../app/genesis.ts';
import type { Chain } from '../chain/chain.ts';
import type { Engine, TxSubmission } from '../chain/engine.ts';
import { type EngineHealth, haltedEngine } from '../chain/sync-status.ts';
import { ed25519Address, ed25519FromJson } from '../crypto/node-keys.ts';
import type { CosmosPool } from '../mempool/cosmos-pool.ts';
import type { Mempool } from '../mempool/mempool.ts';
import { equalBytes, toHex } from '../primitives/bytes.ts';
import { BlockProducer, isOnDemand } from '../producer/producer.ts';
import { SignerState } from '../producer/signer-state.ts';
import type { Logger } from '../util/logger.ts';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { CosmosTxError } from '../app/cosmos-errors.ts';
import { resolveCometBinary } from '../cometbft/binary.ts';
import { CometEngine, type CometEngineOptions } from '../cometbft/engine.ts';
import { wrapEthTransaction } from '../execution/tx-wrap.ts';
import { mempoolErrorOf } from '../mempool/check-tx.ts';
import { APP_VERSION } from './consensus-services.ts';

export interface EngineOptions {
  home: string;
  /** Where the validator's signing state (priv_validator_state.json) is kept. */
  dataDir: string;
  genesis: Genesis;
  /** `[consensus]` */
  consensus: { timeoutCommit: number; createEmptyBlocks: boolean; createEmptyBlocksInterval: number };
  logger: Logger;
  /** Set: a local dev chain's producer. */
  dev?: DevChainOptions;
  /** Set: network mode (CometBFT). */
  network?: NetworkSettings;
}

/** How `chaind dev`'s producer differs from `start`'s. */
export interface DevChainOptions {
  /** ProducerOptions.devLogs */
  logs: boolean;
  /**
   * The home is a throwaway one, removed when the process exits: the stores and logs are not
   * fsynced and the validator's signing state stays in memory, since no restart will ever read them.
   */
  ephemeral?: boolean;
}

export interface EngineModules {
  chain: Chain;
  mempool: Mempool;
  cosmosPool: CosmosPool;
}

/**
 * `chaind dev`'s engine: this node produces every block when it is the genesis validator. Otherwise
 * nothing can advance its chain (it has no peers to follow), and every health signal says so.
 */
export class EmbeddedEngine implements Engine {
  /** undefined: this node is not the genesis validator. */
  readonly producer: BlockProducer | undefined;
  readonly health: EngineHealth;

  constructor(o: EngineOptions, m: EngineModules) {
    const log = o.logger.child({ module: 'node' });
    const key = ed25519FromJson(
      JSON.parse(readFileSync(join(o.home, 'config', 'priv_validator_key.json'), 'utf8')),
      'priv_validator_key.json',
    );
    const address = toHex(ed25519Address(key.publicKey)).toUpperCase();
    const validator = o.genesis.validators.find((v) => v.address === address);
    if (!validator) {
      const reason = `this node (validator address ${address}) is not the genesis validator and has no peers: it produces no blocks and follows none`;
      this.health = haltedEngine(() => m.chain.latestHeight, reason);
      log.error({ address }, 'this node is not the genesis validator: not producing blocks');
      return;
    }
    this.producer = new BlockProducer({
      chain: m.chain,
      mempool: m.mempool,
      cosmosPool: m.cosmosPool,
      chainId: o.genesis.chain_id,
      validatorKey: key,
      votingPower: BigInt(validator.power),
      signer: SignerState.open(join(o.dataDir, 'priv_validator_state.json'), m.chain.latestHeight === 0, {
        persist: !o.dev?.ephemeral,
      }),
      timeoutCommitMs: o.consensus.timeoutCommit,
      createEmptyBlocks: o.consensus.createEmptyBlocks,
      createEmptyBlocksIntervalMs: o.consensus.createEmptyBlocksInterval,
      logger: o.logger,
      devLogs: o.dev?.logs,
      initialBlock: o.dev !== undefined,
    });
    this.health = this.producer.health;
  }

  async start(): Promise<void> {
    this.producer?.start();
  }

  async stop(): Promise<void> {
    await this.producer?.stop();
  }
}

/**
 * Network mode's engine: CometBFT decides blocks, this node is its ABCI++ application
 * (src/cometbft/). Transactions go to CometBFT's mempool, which checks them with this node's
 * admission (CheckTx) and gossips them to its peers.
 */
export class NetworkEngine implements Engine {
  readonly comet: CometEngine;
  /** Network mode has no embedded producer. */
  readonly producer = undefined;

  constructor(comet: CometEngine) {
    this.comet = comet;
  }

  get health(): EngineHealth {
    return this.comet.health;
  }

  start(): Promise<void> {
    return this.comet.start();
  }

  stop(): Promise<void> {
    return this.comet.stop();
  }
}

/** Every engine this node can run. */
export type NodeEngine = EmbeddedEngine | NetworkEngine;

/** Submissions through CometBFT's mempool, refused with the same errors as local admission. */
export function networkTxSubmission(comet: CometEngine, m: EngineModules): TxSubmission {
  // CometBFT's broadcast answer has no gas_wanted; the admitting pool holds the tx by then
  return {
    submitEthereumTx: async (raw) => {
      const r = await comet.submit(wrapEthTransaction(raw));
      const hash = keccak_256(raw);
      if (r.code !== 0) {
        const refusal = mempoolErrorOf(r);
        // CometBFT's cache answers a mined tx sent again before the app sees it: say what geth says
        if (refusal.reason === 'already_known' && !m.mempool.has(hash)) {
          const seen = await m.mempool.seenRefusal(raw, hash);
          if (seen.reason === 'nonce_too_low') throw seen;
        }
        throw refusal;
      }
      return { hash, gasLimit: m.mempool.get(hash)?.gasLimit ?? 0n };
    },
    submitCosmosTx: async (txRaw) => {
      const r = await comet.submit(txRaw);
      if (r.code !== 0) throw new CosmosTxError(r.code, r.log);
      return { hash: r.hash, gasLimit: m.cosmosPool.get(r.hash)?.gasLimit ?? 0n };
    },
  };
}

/**
 * Submissions admitted by this node's own mempools (their CheckTx). `untilMined`: an executable
 * Ethereum tx is answered once a block took it (on-demand mining, as anvil's automine), so the
 * next request of a script that did not wait for its receipt already sees its effects.
 */
export function localTxSubmission(
  mempool: Mempool,
  cosmosPool: CosmosPool,
  untilMined?: (hash: Uint8Array) => Promise<void>,
): TxSubmission {
  return {
    submitEthereumTx: async (raw) => {
      const admitted = await mempool.checkTx(raw);
      if (untilMined && mempool.isPending(admitted.hash)) await untilMined(admitted.hash);
      return admitted;
    },
    submitCosmosTx: async (txRaw) => cosmosPool.checkTx(txRaw),
  };
}

/**
 * How long a submission waits for its block in on-demand mining before it is answered anyway (the tx
 * stays pending and is mined when the producer can): a failing producer must not hang the caller.
 */
export const MINED_WAIT_MS = 10_000;

/** Resolves once a committed block included or rejected `hash`, or after `MINED_WAIT_MS`. */
export function untilMinedBy(chain: Chain): (hash: Uint8Array) => Promise<void> {
  return (hash) =>
    new Promise<void>((resolve) => {
      const done = () => {
        off();
        clearTimeout(timer);
        resolve();
      };
      const off = chain.onBlock(({ executed }) => {
        if (
          executed.receipts.some((r) => equalBytes(r.txHash, hash)) ||
          executed.rejected.some((r) => equalBytes(r.hash, hash))
        )
          done();
      });
      const timer = setTimeout(done, MINED_WAIT_MS);
    });
}

/** `[consensus]` that makes a block as soon as transactions wait and none otherwise. */
export function isOnDemandMining(c: EngineOptions['consensus']): boolean {
  return isOnDemand({
    timeoutCommitMs: c.timeoutCommit,
    createEmptyBlocks: c.createEmptyBlocks,
    createEmptyBlocksIntervalMs: c.createEmptyBlocksInterval,
  });
}

/**
 * The engine and where transactions go: with `[consensus] engine = "cometbft"` CometBFT and its
 * mempool, otherwise the embedded producer and the local mempools.
 */
export function createEngine(
  o: EngineOptions,
  m: EngineModules,
): { engine: NodeEngine; submission: TxSubmission } {
  if (o.network) {
    const comet = new CometEngine({
      ...o.network,
      home: o.home,
      dataDir: o.dataDir,
      binary: resolveCometBinary(o.network.binary, o.home),
      chain: m.chain,
      pools: { mempool: m.mempool, cosmosPool: m.cosmosPool },
      genesis: o.genesis,
      version: APP_VERSION,
      logger: o.logger,
    });
    return { engine: new NetworkEngine(comet), submission: networkTxSubmission(comet, m) };
  }
  const untilMined = isOnDemandMining(o.consensus) ? untilMinedBy(m.chain) : undefined;
  return {
    engine: new EmbeddedEngine(o, m),
    submission: localTxSubmission(m.mempool, m.cosmosPool, untilMined),
  };
}

/** What network mode needs beyond the embedded engine's options (node.ts maps the config). */
export type NetworkSettings = Pick<CometEngineOptions, 'settings' | 'query' | 'onFatal' | 'snapshots'> & {
  /** `[consensus] cometbft-binary` (empty: the installed one). */
  binary: string;
};
