/**
 * What the node needs of the engine that decides its blocks, whichever it is (the embedded
 * single-validator producer of `chaind dev`, or a network engine such as CometBFT): to run it, to
 * know whether it advances the chain, and where the RPCs hand it transactions. node/ builds one engine
 * and reads it only through these interfaces.
 */
import type { EngineHealth } from './sync-status.ts';

export interface Engine {
  start(): Promise<void>;
  /** Resolves once a block in progress is fully committed. */
  stop(): Promise<void>;
  /** What every health signal reads. */
  readonly health: EngineHealth;
}

/** A transaction the engine took in: its hash, and the gas it asks for (CometBFT's gas_wanted). */
export interface SubmittedTx {
  hash: Uint8Array;
  gasLimit: bigint;
}

/**
 * Where every RPC submits a transaction (eth_sendRawTransaction, chain_associate, the Cosmos
 * broadcasts of the consensus RPC, REST and gRPC). The embedded engine admits into the local mempools;
 * a network engine passes the bytes to its own mempool, which checks them with the same admission.
 */
export interface TxSubmission {
  /** A raw Ethereum tx; refused with a MempoolError (geth's wording). */
  submitEthereumTx(raw: Uint8Array): Promise<SubmittedTx>;
  /** A Cosmos TxRaw; refused with a CosmosTxError (its ABCI code and codespace). */
  submitCosmosTx(txRaw: Uint8Array): Promise<SubmittedTx>;
}
