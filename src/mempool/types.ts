/**
 * What the mempool needs from the rest of the node, as narrow interfaces (no storage imports), and
 * the options it owns (`[mempool]` in app.toml / config.toml; node/ maps config onto them).
 */
import type { DecodedEthTx, EthTxDecoder } from '../execution/transactions.ts';

/** Reads the latest committed state. */
export interface AccountReader {
  nonce(address: Uint8Array): Promise<bigint>;
  /** EVM balance in wei. */
  balance(address: Uint8Array): Promise<bigint>;
}

export interface MempoolParams {
  /** EVM chain id; the decoder enforces it, the mempool reports it. */
  chainId: bigint;
  /** Consensus max gas per block; a tx above it can never be included. */
  blockGasLimit: bigint;
  /** Minimum fee cap accepted now: the next block's base fee (never below the genesis floor). */
  baseFee(): bigint;
  /** Largest raw transaction accepted, in bytes (at most ETH_TX_MAX_BYTES). */
  maxTxBytes: number;
}

/**
 * The largest Ethereum transaction a pool takes: geth's txMaxSize (4 slots of 32 KiB), which keeps a
 * tx's gossip and validation cost bounded whatever the block's byte limit allows.
 */
export const ETH_TX_MAX_BYTES = 128 * 1024;

export interface MempoolOptions {
  /** Maximum number of transactions held (pending + queued). */
  size: number;
  /** Capacity of the seen-hash LRU; 0 disables it. */
  cacheSize: number;
  /** Keep hashes of rejected txs in the cache so that resubmitting them is refused without checks. */
  keepInvalidTxsInCache: boolean;
  /** Expire txs older than this after each block; 0 disables. */
  ttlDurationMs: number;
  /** Expire txs admitted more than this many blocks ago after each block; 0 disables. */
  ttlNumBlocks: number;
}

/** CometBFT's defaults for the same keys. */
export const DEFAULT_MEMPOOL_OPTIONS: Readonly<MempoolOptions> = Object.freeze({
  size: 5000,
  cacheSize: 10000,
  keepInvalidTxsInCache: false,
  ttlDurationMs: 0,
  ttlNumBlocks: 0,
});

export interface MempoolDeps {
  options?: Partial<MempoolOptions>;
  params: MempoolParams;
  /** Latest committed state; replaced by the reader given to each `update`. */
  accounts: AccountReader;
  /** `createEthTxDecoder(common)` from execution/. */
  decode: EthTxDecoder;
  /** Height of the last committed block when the pool is created. Default 0. */
  height?: number;
  /** Clock for TTL; defaults to Date.now. */
  now?: () => number;
}

export type PendingListener = (tx: DecodedEthTx) => void;
