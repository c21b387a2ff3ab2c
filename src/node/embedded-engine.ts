/**
 * `chaind dev`'s engine: the embedded single-validator producer, with submissions admitted into the
 * local mempools (with on-demand mining, answered once a block took them).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Genesis } from '../app/genesis.ts';
import type { Chain } from '../chain/chain.ts';
import type { Engine, TxSubmission } from '../chain/engine.ts';
import { type EngineHealth, haltedEngine } from '../chain/sync-status.ts';
import { ed25519Address, ed25519FromJson } from '../crypto/node-keys.ts';
import type { AdmissionPools } from '../mempool/check-tx.ts';
import type { CosmosPool } from '../mempool/cosmos-pool.ts';
import type { Mempool } from '../mempool/mempool.ts';
import { equalBytes, toHex } from '../primitives/bytes.ts';
import { BlockProducer, isOnDemand } from '../producer/producer.ts';
import { SignerState } from '../producer/signer-state.ts';
import type { Logger } from '../util/logger.ts';
import type { DevChainOptions } from './node-options.ts';

export interface EmbeddedEngineOptions {
  home: string;
  /** Where the validator's signing state (priv_validator_state.json) is kept. */
  dataDir: string;
  genesis: Genesis;
  /** `[consensus]` */
  consensus: { timeoutCommit: number; createEmptyBlocks: boolean; createEmptyBlocksInterval: number };
  logger: Logger;
  /** Set: a local dev chain's producer. */
  dev?: DevChainOptions;
}

/**
 * This node produces every block when it is the genesis validator. Otherwise nothing can advance its
 * chain (it has no peers to follow), and every health signal says so.
 */
export class EmbeddedEngine implements Engine {
  /** undefined: this node is not the genesis validator. */
  readonly producer: BlockProducer | undefined;
  readonly health: EngineHealth;

  constructor(o: EmbeddedEngineOptions, m: AdmissionPools & { chain: Chain }) {
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

/** The embedded engine, and submissions into the local mempools. */
export function createEmbeddedEngine(
  o: EmbeddedEngineOptions,
  m: AdmissionPools & { chain: Chain },
): { engine: EmbeddedEngine; submission: TxSubmission } {
  const engine = new EmbeddedEngine(o, m);
  // a dev chain's mining mode can change at run time (evm_setAutomine): it is read per submission
  const producer = engine.producer;
  const untilMined =
    o.dev && producer
      ? untilMinedBy(m.chain, () => producer.mining.automine)
      : isOnDemandMining(o.consensus)
        ? untilMinedBy(m.chain)
        : undefined;
  return { engine, submission: localTxSubmission(m.mempool, m.cosmosPool, untilMined) };
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

/**
 * Resolves once a committed block included or rejected `hash`, or after `MINED_WAIT_MS`; at once when
 * `automine` says blocks do not come for waiting txs now.
 */
export function untilMinedBy(
  chain: Chain,
  automine: () => boolean = () => true,
): (hash: Uint8Array) => Promise<void> {
  return (hash) =>
    new Promise<void>((resolve) => {
      if (!automine()) return resolve();
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
export function isOnDemandMining(c: EmbeddedEngineOptions['consensus']): boolean {
  return isOnDemand({
    timeoutCommitMs: c.timeoutCommit,
    createEmptyBlocks: c.createEmptyBlocks,
    createEmptyBlocksIntervalMs: c.createEmptyBlocksInterval,
  });
}
