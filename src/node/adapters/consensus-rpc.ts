/**
 * The consensus RPC's interfaces (src/rpc/consensus/types.ts) over the node's modules: the block
 * store, the chain's state at a height, the mempools, the engine's TxSubmission and the key files.
 * rpc/ never touches storage, so this is the one place that knows both sides.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Genesis } from '../../app/genesis.ts';
import type { Chain } from '../../chain/chain.ts';
import type { TxSubmission } from '../../chain/engine.ts';
import {
  BlockIdFlag,
  type Commit,
  precommitSignBytes,
  sortValidatorSet,
  txHash,
  validatorAddress,
} from '../../codec/index.ts';
import type { SyncStatus } from '../../chain/sync-status.ts';
import { blockIdOf } from '../../producer/producer.ts';
import { STEP_PRECOMMIT } from '../../producer/signer-state.ts';
import { ed25519FromJson, nodeIdOf } from '../../crypto/node-keys.ts';
import { unwrapEthTransaction, wrapEthTransaction } from '../../execution/tx-wrap.ts';
import { CosmosTxError } from '../../app/cosmos-errors.ts';
import type { CosmosPool } from '../../mempool/cosmos-pool.ts';
import { MempoolError, type MempoolRejectReason } from '../../mempool/errors.ts';
import type { Mempool } from '../../mempool/mempool.ts';
import { equalBytes, fromHex } from '../../primitives/bytes.ts';
import type { AbciQueryDeps } from '../../rpc/consensus/abci-query.ts';
import type {
  BlockView,
  ChainView,
  CheckTxResult,
  ConsensusRpcDeps,
  MempoolView,
  NetworkView,
  NodeIdentity,
  StateView,
  TxResultView,
  TxSubmitter,
  UpstreamRpc,
  ValidatorSetView,
  ValidatorView,
} from '../../rpc/consensus/types.ts';
import { encodeBlock } from '../../storage/blocks/block-codec.ts';
import type { BlockStore } from '../../storage/blocks/store.ts';
import { EVM_TX_EVENT_TYPE, evmTxEvents } from '../../storage/blocks/tx-events.ts';
import { simulator } from './simulate.ts';
import type { Block } from '../../storage/blocks/types.ts';
import type { Logger } from '../../util/logger.ts';

/** The CometBFT RPC version whose shapes the routes follow; CosmJS picks its 0.38 decoder by it. */
export const COMETBFT_RPC_VERSION = '0.38.17';

export interface ConsensusRpcSources {
  home: string;
  /** The node's data directory (`db_dir`): the block producer keeps priv_validator_state.json there. */
  dataDir: string;
  genesis: Genesis;
  moniker: string;
  appVersion: string;
  chain: Chain;
  blocks: BlockStore;
  mempool: Mempool;
  cosmosPool: CosmosPool;
  submission: TxSubmission;
  logger: Logger;
  /** The engine's health (ChainNode.syncStatus). */
  sync: () => SyncStatus;
  /** What abci_query answers from (by default, built here: see consensusQueries). */
  queries?: AbciQueryDeps;
  /** Network mode: CometBFT's own RPC, which the routes are passed on to, and its blocks. */
  upstream?: {
    rpc: UpstreamRpc;
    block(height: number): Promise<Omit<BlockView, 'size'> | undefined>;
  };
}

const GAS_UNLIMITED = 2n ** 63n - 1n;

/**
 * The state at a height and Simulate, which queries read: they need only the chain, so they exist
 * before the engine, which in network mode answers CometBFT's ABCI Query from them.
 */
export function consensusQueries(chain: Chain, chainId: string): AbciQueryDeps {
  return {
    chain: { latestHeight: () => chain.latestHeight },
    state: stateView(chain),
    simulate: simulator({ state: () => chain.state, chainId, maxBlockGas: () => chain.gasLimit }),
  };
}

export function consensusRpcDeps(s: ConsensusRpcSources): ConsensusRpcDeps {
  const validators = genesisValidators(s.genesis);
  const queries = s.queries ?? consensusQueries(s.chain, s.genesis.chain_id);
  return {
    ...(s.upstream && { upstream: s.upstream.rpc }),
    identity: nodeIdentity(s, validators),
    chain: chainView(s, validators),
    validators: { validators: () => validators } satisfies ValidatorSetView,
    state: queries.state,
    submitter: txSubmitter(s),
    simulate: queries.simulate,
    mempool: mempoolView(s.mempool, s.cosmosPool),
    network: noPeers(),
    sync: s.sync,
    // the chain notifies after the height is published, so the watermark already covers it
    onCommit: (listener) => s.chain.onBlock((c) => listener(c.block.header.height)),
  };
}

function readKeyFile(home: string, name: string) {
  const path = join(home, 'config', name);
  return ed25519FromJson(JSON.parse(readFileSync(path, 'utf8')), path);
}

/** The validator set: genesis's, in CometBFT order (no validator-set changes exist yet). */
function genesisValidators(genesis: Genesis): ValidatorView[] {
  return sortValidatorSet(
    genesis.validators.map((v) => {
      const pubKey = new Uint8Array(Buffer.from(v.pub_key.value, 'base64'));
      return { pubKey, address: validatorAddress(pubKey), votingPower: BigInt(v.power) };
    }),
  );
}

/**
 * What node_info.listen_addr says where chaind answers it itself: the embedded engine binds no P2P
 * address, and in network mode the address is CometBFT's, whose own /status and /net_info the
 * consensus RPC passes on. Not empty, because CosmJS refuses a /status whose listen_addr is empty.
 */
export const NO_P2P_LISTENER = 'none';

function nodeIdentity(s: ConsensusRpcSources, set: ValidatorView[]): NodeIdentity {
  const pubKey = readKeyFile(s.home, 'priv_validator_key.json').publicKey;
  const address = validatorAddress(pubKey);
  const inSet = set.find((v) => equalBytes(v.address, address));
  return {
    nodeId: nodeIdOf(readKeyFile(s.home, 'node_key.json').publicKey),
    listenAddr: NO_P2P_LISTENER,
    chainId: s.genesis.chain_id,
    moniker: s.moniker,
    version: COMETBFT_RPC_VERSION,
    appVersion: s.appVersion,
    validator: { address, pubKey, votingPower: inSet?.votingPower ?? 0n },
  };
}

function chainView(s: ConsensusRpcSources, set: ValidatorView[]): ChainView {
  const { chain, blocks } = s;
  const genesisDoc: unknown = JSON.parse(readFileSync(join(s.home, 'config', 'genesis.json'), 'utf8'));
  const earliest = () => blocks.earliestHeight() ?? 1;
  const inRange = (h: number) => Number.isSafeInteger(h) && h >= earliest() && h <= chain.latestHeight;
  const stored = (h: number): Block | undefined => (inRange(h) ? blocks.blockByHeight(h) : undefined);
  // The block ID and size need the block re-encoded: computed only if a route reads them.
  const view = (b: Block): BlockView => {
    let blockId: BlockView['blockId'] | undefined;
    let size: number | undefined;
    return {
      header: b.header,
      txs: b.txs,
      lastCommit: b.lastCommit,
      get blockId() {
        return (blockId ??= blockIdOf(b));
      },
      get size() {
        return (size ??= encodeBlock(b).length);
      },
    };
  };
  return {
    latestHeight: () => chain.latestHeight,
    earliestHeight: earliest,
    block: (h) => {
      const b = stored(h);
      return b && view(b);
    },
    ...(s.upstream && { engineBlock: s.upstream.block }),
    heightByHash: (hash) => {
      const h = blocks.heightByHash(hash);
      return h !== undefined && inRange(h) ? h : undefined;
    },
    txResults: (h) => {
      const b = stored(h);
      return b && txResults(s, b);
    },
    txLocation: (hash) => {
      const loc = blocks.txLocationByCosmosHash(hash);
      return loc && inRange(loc.height) ? loc : undefined;
    },
    appHashAfter: (h) => {
      if (h === chain.latestHeight) return chain.appHash;
      // The state after block h is what block h+1's header commits to.
      return inRange(h + 1) ? blocks.headerByHeight(h + 1)?.header.appHash : undefined;
    },
    commit: (h) => {
      const b = stored(h);
      if (!b) return undefined;
      const next = h < chain.latestHeight ? blocks.blockByHeight(h + 1) : undefined;
      if (next) return { commit: next.lastCommit, canonical: true };
      const seen = seenCommit(s, b, set);
      return seen && { commit: seen, canonical: false };
    },
    genesis: () => genesisDoc,
    eventIndex: {
      indexedSince: () => blocks.eventsIndexedSince(),
      covers: (key) => !key.startsWith(`${EVM_TX_EVENT_TYPE}.`),
      exact: (key, value) => {
        if (key !== `${EVM_TX_EVENT_TYPE}.ethereumTxHash`) return undefined;
        if (!/^(0x)?[0-9a-fA-F]{64}$/.test(value)) return [];
        const loc = blocks.txLocationByEvmHash(fromHex(value.replace(/^0x/, '')));
        return loc && inRange(loc.height) ? [{ height: loc.height, index: loc.index }] : [];
      },
      // the watermark: index entries of a height not yet published are not answered
      txs: (key, value, from, to, max) =>
        blocks.txsByEvent(key, value, Math.max(from, earliest()), Math.min(to, chain.latestHeight), max),
    },
  };
}

/**
 * The latest block's commit exists only as this validator's own precommit, which the double-sign
 * guard persisted in priv_validator_state.json. It is served only if the saved sign bytes are
 * exactly the precommit for this block (so a stale or foreign signature is never presented).
 */
function seenCommit(s: ConsensusRpcSources, block: Block, set: ValidatorView[]): Commit | undefined {
  let state: { height?: string; round?: number; step?: number; signature?: string; signbytes?: string };
  try {
    state = JSON.parse(readFileSync(join(s.dataDir, 'priv_validator_state.json'), 'utf8'));
  } catch {
    return undefined;
  }
  const h = block.header.height;
  if (state.height !== String(h) || state.step !== STEP_PRECOMMIT || !state.signature || !state.signbytes)
    return undefined;
  const blockId = blockIdOf(block);
  const expected = precommitSignBytes(block.header.chainId, h, state.round ?? 0, blockId, block.header.time);
  if (!equalBytes(Buffer.from(state.signbytes, 'hex'), expected)) return undefined;
  const signer = set.find((v) => equalBytes(v.address, block.header.proposerAddress));
  if (!signer) return undefined;
  return {
    height: h,
    round: state.round ?? 0,
    blockId,
    signatures: [
      {
        blockIdFlag: BlockIdFlag.Commit,
        validatorAddress: signer.address,
        timestamp: block.header.time,
        signature: new Uint8Array(Buffer.from(state.signature, 'base64')),
      },
    ],
  };
}

/** One result per tx: the stored Cosmos result, or one derived from the EVM receipt. */
function txResults(s: ConsensusRpcSources, block: Block): TxResultView[] {
  const h = block.header.height;
  const cosmos = new Map((s.blocks.cosmosResultsOfBlock(h) ?? []).map((r) => [r.index, r]));
  const receipts = new Map((s.blocks.receiptsOfBlock(h) ?? []).map((r) => [r.blockTxIndex, r]));
  return block.txs.map((raw, i): TxResultView => {
    const c = cosmos.get(i);
    if (c)
      return {
        code: c.code,
        codespace: c.codespace,
        log: c.log,
        data: new Uint8Array(0),
        gasWanted: c.gasWanted,
        gasUsed: c.gasUsed,
        events: c.events,
      };
    const r = receipts.get(i);
    // gas_wanted is the tx's gas limit, as in last_results_hash (producer/hashes.ts).
    const gasWanted = r ? s.chain.decodeBlockTx(raw).tx.gasLimit : 0n;
    return {
      code: r?.status === 1 ? 0 : 1,
      codespace: '',
      log: r?.status === 1 ? '' : 'EVM execution failed',
      data: new Uint8Array(0),
      gasWanted,
      gasUsed: r?.gasUsed ?? 0n,
      events: r ? evmTxEvents(r) : [],
    };
  });
}

function stateView(chain: Chain): StateView {
  return {
    earliestHeight: () => chain.states.earliestHeight(),
    get: (store, key, height) => chain.stateAt(height).get(store, key),
    read: (height, fn) => chain.stateAt(height).read(fn),
    range: async function* (store, start, end, height) {
      for await (const [key, value] of chain.stateAt(height).range(store, start, end)) yield { key, value };
    },
  };
}

/** Cosmos SDK codes (codespace "sdk") for the mempool's refusals. */
const SDK_CODE: Partial<Record<MempoolRejectReason, number>> = {
  already_known: 19, // ErrTxInMempoolCache
  already_in_cache: 19,
  txpool_full: 20, // ErrMempoolIsFull
  oversized: 21, // ErrTxTooLarge
  insufficient_funds: 5, // ErrInsufficientFunds
  nonce_too_low: 32, // ErrWrongSequence
  fee_cap_below_base_fee: 13, // ErrInsufficientFee
  replacement_underpriced: 13,
  intrinsic_gas_too_low: 11, // ErrOutOfGas
  gas_limit_exceeded: 18, // ErrInvalidRequest
};
const ERR_INVALID_REQUEST = 18;

/**
 * Broadcasts, through the engine's TxSubmission: a TxRaw wrapping an Ethereum tx as an Ethereum tx,
 * any other TxRaw as a Cosmos tx (decoded and verified by admission, refused with SDK codes).
 */
function txSubmitter(s: ConsensusRpcSources): TxSubmitter {
  const log = s.logger.child({ module: 'rpc' });
  return {
    submit: async (txRaw): Promise<CheckTxResult> => {
      const hash = txHash(txRaw);
      const eth = unwrapEthTransaction(txRaw);
      if (!eth) {
        try {
          const tx = await s.submission.submitCosmosTx(txRaw);
          return { code: 0, codespace: '', log: '', hash, gasWanted: tx.gasLimit };
        } catch (err) {
          if (!(err instanceof CosmosTxError)) throw err;
          log.debug({ hash: Buffer.from(hash).toString('hex'), code: err.abciCode }, 'broadcast tx refused');
          return { code: err.abciCode, codespace: err.codespace, log: err.message, hash, gasWanted: 0n };
        }
      }
      try {
        const tx = await s.submission.submitEthereumTx(eth);
        return { code: 0, codespace: '', log: '', hash, gasWanted: tx.gasLimit };
      } catch (err) {
        if (!(err instanceof MempoolError)) throw err;
        log.debug({ hash: Buffer.from(hash).toString('hex'), reason: err.reason }, 'broadcast tx refused');
        const code = SDK_CODE[err.reason] ?? ERR_INVALID_REQUEST;
        return { code, codespace: 'sdk', log: err.message, hash, gasWanted: 0n };
      }
    },
    awaitInclusion: (hash, signal) =>
      new Promise((resolve, reject) => {
        const found = () => {
          const loc = s.blocks.txLocationByCosmosHash(hash);
          return loc && loc.height <= s.chain.latestHeight ? loc : undefined;
        };
        const now = found();
        if (now) return resolve(now);
        // onBlock fires after the height is published, so the watermark already covers the block.
        const off = s.chain.onBlock(() => {
          const loc = found();
          if (!loc) return;
          off();
          signal.removeEventListener('abort', onAbort);
          resolve(loc);
        });
        const onAbort = () => {
          off();
          reject(signal.reason);
        };
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      }),
  };
}

function mempoolView(mempool: Mempool, cosmosPool: CosmosPool): MempoolView {
  // reap lists executable txs best-first without removing them; base fee 0 lists all of them.
  const listed = (limit: number) =>
    [
      ...mempool.reap(GAS_UNLIMITED, limit, 0n).map((t) => wrapEthTransaction(t.raw)),
      ...cosmosPool.reap(GAS_UNLIMITED).map((t) => t.raw),
    ].slice(0, limit);
  return {
    size: () => mempool.size + cosmosPool.size,
    totalBytes: () => listed(Number.POSITIVE_INFINITY).reduce((n, tx) => n + tx.length, 0),
    txs: listed,
  };
}

/** The embedded engine has no P2P: no listener, no peers (network mode passes on CometBFT's /net_info). */
function noPeers(): NetworkView {
  return { listening: () => false, listeners: () => [], peers: () => [] };
}
