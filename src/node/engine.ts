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
import { toHex } from '../primitives/bytes.ts';
import { BlockProducer } from '../producer/producer.ts';
import { SignerState } from '../producer/signer-state.ts';
import type { Logger } from '../util/logger.ts';

export interface EngineOptions {
  home: string;
  /** Where the validator's signing state (priv_validator_state.json) is kept. */
  dataDir: string;
  genesis: Genesis;
  /** `[consensus]` */
  consensus: { timeoutCommit: number; createEmptyBlocks: boolean; createEmptyBlocksInterval: number };
  logger: Logger;
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
      signer: SignerState.open(join(o.dataDir, 'priv_validator_state.json'), m.chain.latestHeight === 0),
      timeoutCommitMs: o.consensus.timeoutCommit,
      createEmptyBlocks: o.consensus.createEmptyBlocks,
      createEmptyBlocksIntervalMs: o.consensus.createEmptyBlocksInterval,
      logger: o.logger,
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

/** Every engine this node can run (one today). */
export type NodeEngine = EmbeddedEngine;

/** Submissions admitted by this node's own mempools (their CheckTx). */
export function localTxSubmission(mempool: Mempool, cosmosPool: CosmosPool): TxSubmission {
  return {
    submitEthereumTx: (raw) => mempool.checkTx(raw),
    submitCosmosTx: async (txRaw) => cosmosPool.checkTx(txRaw),
  };
}

/** The engine and where transactions go: the embedded producer and the local mempools. */
export function createEngine(
  o: EngineOptions,
  m: EngineModules,
): { engine: NodeEngine; submission: TxSubmission } {
  return { engine: new EmbeddedEngine(o, m), submission: localTxSubmission(m.mempool, m.cosmosPool) };
}
