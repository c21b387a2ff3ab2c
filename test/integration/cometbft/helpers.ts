/**
 * chaind's ABCI++ application over a real home (lmdb stores in a temp dir, the genesis `chaind init`
 * writes), built as network mode builds it (src/node/node.ts, src/cometbft/engine.ts) but without
 * the socket and the CometBFT child: every request goes through `answer` of abci/server.ts, the
 * function the socket server calls with each decoded request. Requests and responses are encoded
 * and decoded on the way, as the socket would.
 */
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DirectSecp256k1Wallet } from '@cosmjs/proto-signing';
import { SigningStargateClient } from '@cosmjs/stargate';
import { TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import {
  type MisbehaviorType,
  Request,
  Response,
  ResponseProcessProposal_ProposalStatus,
} from 'cosmjs-types/tendermint/abci/types';
import type { BlockIDFlag } from 'cosmjs-types/tendermint/types/validator';
import type { DeepPartial } from 'cosmjs-types/helpers';
import { keccak256, Wallet, type TransactionRequest } from 'ethers';
import { encodeAssociationTx } from '../../../src/app/association-tx.ts';
import { parseGenesis, type Genesis } from '../../../src/app/genesis.ts';
import { readBaseFee } from '../../../src/chain/block-execution.ts';
import type { Chain } from '../../../src/chain/chain.ts';
import { answer } from '../../../src/cometbft/abci/server.ts';
import { ChaindAbciApp } from '../../../src/cometbft/app.ts';
import { SnapshotStore } from '../../../src/cometbft/snapshots.ts';
import { loadConfig } from '../../../src/config/load.ts';
import { wrapEthTransaction } from '../../../src/execution/tx-wrap.ts';
import type { CosmosPool } from '../../../src/mempool/cosmos-pool.ts';
import type { Mempool } from '../../../src/mempool/mempool.ts';
import { sha256 } from '../../../src/crypto/hash.ts';
import { consensusRpcDeps } from '../../../src/node/adapters/consensus-rpc.ts';
import { APP_VERSION } from '../../../src/node/consensus-services.ts';
import { localTxSubmission } from '../../../src/node/embedded-engine.ts';
import { Lifecycle } from '../../../src/node/lifecycle.ts';
import { createMempools } from '../../../src/node/mempools.ts';
import { abciQuery } from '../../../src/node/network-engine.ts';
import { dataDirOf } from '../../../src/node/node.ts';
import { openChain, openStores } from '../../../src/node/stores.ts';
import { memoryLogger, type LogRecord } from '../../../src/util/logger.ts';
import { devWallets, signed } from '../../helpers/dev-chain.ts';
import { makeHome } from '../../helpers/node.ts';

/** The chain id `makeHome` (test/helpers/node.ts) gives its genesis, and its EVM chain id. */
export const CHAIN_ID = 'it-1';

/** The dev wallets of the mnemonic `test test … junk`, as ethers signs with them. */
export const wallets = devWallets;

type Res = Required<{ [K in keyof Response]: NonNullable<Response[K]> }>;
type Body<K extends keyof Request> = DeepPartial<NonNullable<Request[K]>>;

export interface AbciHarness {
  home: string;
  dataDir: string;
  genesis: Genesis;
  app: ChaindAbciApp;
  chain: Chain;
  mempool: Mempool;
  cosmosPool: CosmosPool;
  /** Every line the application (and the chain under it) logged, debug included. */
  logs: LogRecord[];
  /**
   * One ABCI request through `answer`: `body` is completed with protobuf defaults, encoded and decoded
   * as the socket server decodes it; the response is encoded and decoded as CometBFT reads it. Throws
   * when the answer is not a response of the same kind (an exception stops CometBFT).
   */
  call<K extends keyof Request & keyof Res>(kind: K, body: Body<K>): Promise<Res[K]>;
  /** The application's snapshot writer finished, then the stores closed in reverse order. */
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** `[state-sync] snapshot-interval` (default 0: none). */
  snapshotInterval?: number;
  /** `[state-sync] snapshot-chunk-bytes`. */
  snapshotChunkBytes?: number;
  /** What CometBFT answers for the parent of the first block after a state sync. */
  parentHash?(height: number): Promise<Uint8Array>;
}

export async function openAbciApp(home: string, opts: HarnessOptions = {}): Promise<AbciHarness> {
  const { config } = loadConfig({
    home,
    env: {},
    flags: {
      'consensus.engine': 'cometbft',
      // the State Store's write is awaited per block: reads right after Commit see it
      'state-store.ss-async-write-buffer': '0',
      'state-sync.snapshot-interval': String(opts.snapshotInterval ?? 0),
      ...(opts.snapshotChunkBytes
        ? { 'state-sync.snapshot-chunk-bytes': String(opts.snapshotChunkBytes) }
        : {}),
    },
  });
  const genesis = parseGenesis(readFileSync(join(home, 'config', 'genesis.json'), 'utf8'));
  const logs: LogRecord[] = [];
  const logger = memoryLogger(logs);
  const dataDir = dataDirOf(home, config);
  const lc = new Lifecycle(logger);
  try {
    const stores = await openStores(lc, { dataDir, config, genesis, logger });
    const chain = await lc.open('chain', () => openChain({ genesis, logger }, stores, true));
    const { mempool, cosmosPool } = createMempools({ config, genesis }, chain);
    const deps = consensusRpcDeps({
      home,
      dataDir,
      genesis,
      moniker: config.config.moniker,
      appVersion: APP_VERSION,
      chain,
      blocks: stores.blocks,
      mempool,
      cosmosPool,
      submission: localTxSubmission(mempool, cosmosPool),
      logger,
      sync: () => ({
        catchingUp: false,
        halted: false,
        latestHeight: chain.latestHeight,
        bestKnownHeight: chain.latestHeight,
      }),
    });
    const s = config.app.stateSync;
    const app = new ChaindAbciApp({
      chain,
      pools: { mempool, cosmosPool },
      genesis,
      version: APP_VERSION,
      query: (q) => abciQuery(deps, q),
      logger,
      snapshots: {
        store: new SnapshotStore({
          dir: join(dataDir, 'snapshots'),
          keepRecent: s.snapshotKeepRecent,
          chunkBytes: s.snapshotChunkBytes,
        }),
        interval: s.snapshotInterval,
        restoreDir: join(dataDir, 'snapshots', '.restore'),
      },
      parentHash: opts.parentHash,
    });
    const call = async <K extends keyof Request & keyof Res>(kind: K, body: Body<K>) => {
      const req = Request.decode(
        Request.encode(Request.fromPartial({ [kind]: body } as DeepPartial<Request>)).finish(),
      );
      const res = Response.decode(Response.encode(await answer(app, req)).finish());
      const got = res[kind];
      if (got === undefined) throw new Error(`${kind} answered ${JSON.stringify(Response.toJSON(res))}`);
      return got as Res[K];
    };
    return {
      home,
      dataDir,
      genesis,
      app,
      chain,
      mempool,
      cosmosPool,
      logs,
      call,
      close: async () => {
        await app.close();
        await lc.stop();
      },
    };
  } catch (err) {
    await lc.stop();
    throw err;
  }
}

/**
 * Another validator's home for the chain of `home`: its own keys, `home`'s genesis (`init` writes a
 * genesis naming the new home's own validator, so two homes made alike hold different genesis states).
 */
export function peerHome(t: { after(fn: () => void): void }, home: string): string {
  const peer = makeHome(t);
  copyFileSync(join(home, 'config', 'genesis.json'), join(peer, 'config', 'genesis.json'));
  return peer;
}

/** A Unix-seconds block time as ABCI carries it. */
export const at = (seconds: number) => ({ seconds: BigInt(seconds), nanos: 0 });

/** The genesis time of `makeHome` (2026-01-01T00:00:00Z), in Unix seconds. */
export const GENESIS_SECONDS = Date.parse('2026-01-01T00:00:00Z') / 1000;

/** CheckTx of each tx, which must admit it. */
export async function admit(h: AbciHarness, ...txs: Uint8Array[]): Promise<void> {
  for (const tx of txs) {
    const r = await h.call('checkTx', { tx });
    assert.equal(r.code, 0, r.log);
  }
}

/** A signed Ethereum tx (EIP-1559 unless `tx.type` says otherwise) for chain 713714. */
export function ethTx(wallet: Wallet, tx: TransactionRequest): Promise<Uint8Array> {
  return signed(wallet, {
    type: 2,
    gasLimit: 21_000n,
    maxFeePerGas: 10n ** 10n,
    maxPriorityFeePerGas: 10n ** 9n,
    to: '0x000000000000000000000000000000000000bEEF',
    value: 1n,
    ...tx,
  });
}

/** The same, wrapped in a Cosmos TxRaw as CometBFT carries every Ethereum tx. */
export async function wrappedEthTx(wallet: Wallet, tx: TransactionRequest): Promise<Uint8Array> {
  return wrapEthTransaction(await ethTx(wallet, tx));
}

/** A MsgSend signed with CosmJS (SIGN_MODE_DIRECT) for chain `it-1`. */
export async function cosmosSend(
  key: Uint8Array,
  to: string,
  uchain: bigint,
  o: { sequence: bigint; accountNumber: bigint; feeUchain?: bigint; gas?: bigint },
): Promise<Uint8Array> {
  const wallet = await DirectSecp256k1Wallet.fromKey(key, 'chain');
  const [{ address }] = await wallet.getAccounts();
  const client = await SigningStargateClient.offline(wallet);
  const signed = await client.sign(
    address,
    [
      {
        typeUrl: '/cosmos.bank.v1beta1.MsgSend',
        value: { fromAddress: address, toAddress: to, amount: [{ denom: 'uchain', amount: String(uchain) }] },
      },
    ],
    {
      amount: [{ denom: 'uchain', amount: String(o.feeUchain ?? 200n) }],
      gas: String(o.gas ?? 200_000n),
    },
    '',
    { accountNumber: o.accountNumber, sequence: Number(o.sequence), chainId: CHAIN_ID },
  );
  return TxRaw.encode(signed).finish();
}

/** The base fee the next block charges. */
export const nextBaseFee = (chain: Chain) => readBaseFee(chain.state, chain.feeParams);

/**
 * Counts the block executions the application runs. There is no metric or log line for one, so this
 * counts calls of `Chain.contextFor`, which the application asks for each block it executes (and for
 * nothing else). The tests that rely on it also check that it counts (a positive control), so a
 * refactor that executes without it fails them instead of passing them vacuously.
 */
export function countExecutions(chain: Chain): { readonly count: number } {
  const counter = { count: 0 };
  const original = chain.contextFor.bind(chain);
  chain.contextFor = (block) => {
    counter.count++;
    return original(block);
  };
  return counter;
}

export const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** A block hash for FinalizeBlock: CometBFT's is of the header, which the application only stores. */
export const blockHash = (height: number) => sha256(new TextEncoder().encode(`block ${height}`));

/** The validator CometBFT names as proposer (any 20 bytes: the proposer does not enter execution). */
export const PROPOSER = new Uint8Array(20).fill(0xaa);

/** What a block's ABCI requests say of consensus: the last commit's votes and the misbehavior. */
export interface AbciConsensus {
  votes: { validator: { address: Uint8Array; power: bigint }; blockIdFlag: BlockIDFlag }[];
  misbehavior: {
    type: MisbehaviorType;
    validator: { address: Uint8Array; power: bigint };
    height: bigint;
    time: { seconds: bigint; nanos: number };
    totalVotingPower: bigint;
  }[];
}

/** FinalizeBlock's request for a decided block of `txs` (no votes or misbehavior unless given). */
export function finalizeRequest(
  height: number,
  seconds: number,
  txs: Uint8Array[],
  consensus: AbciConsensus = { votes: [], misbehavior: [] },
) {
  return {
    txs,
    height: BigInt(height),
    time: at(seconds),
    hash: blockHash(height),
    proposerAddress: PROPOSER,
    nextValidatorsHash: new Uint8Array(32),
    decidedLastCommit: { round: 0, votes: consensus.votes },
    misbehavior: consensus.misbehavior,
  };
}

/**
 * One height as the proposer runs it: PrepareProposal from its mempool, ProcessProposal of its own
 * proposal, FinalizeBlock, Commit. Returns the block's txs and FinalizeBlock's answer.
 */
export async function proposeBlock(h: AbciHarness, height: number, seconds: number) {
  const time = at(seconds);
  const { txs } = await h.call('prepareProposal', { maxTxBytes: 1n << 20n, height: BigInt(height), time });
  const { status } = await h.call('processProposal', {
    txs,
    height: BigInt(height),
    time,
    hash: blockHash(height),
    proposerAddress: PROPOSER,
  });
  if (status !== ResponseProcessProposal_ProposalStatus.ACCEPT)
    throw new Error(`the proposer rejected its own proposal at ${height}`);
  const finalized = await h.call('finalizeBlock', finalizeRequest(height, seconds, txs));
  await h.call('commit', {});
  return { txs, finalized };
}

/**
 * A block decided by others (no PrepareProposal or ProcessProposal here): FinalizeBlock, Commit.
 */
export async function decidedBlock(
  h: AbciHarness,
  height: number,
  seconds: number,
  txs: Uint8Array[],
  consensus?: AbciConsensus,
) {
  const finalized = await h.call('finalizeBlock', finalizeRequest(height, seconds, txs, consensus));
  await h.call('commit', {});
  return finalized;
}

/** The fee-less association tx of `chain_associate`, signed by `wallet` over `message`. */
export function associationTx(wallet: Wallet, message: string): Uint8Array {
  const customMessage = new TextEncoder().encode(message);
  const sig = wallet.signingKey.sign(keccak256(customMessage));
  return encodeAssociationTx({
    customMessage,
    r: Buffer.from(sig.r.slice(2), 'hex'),
    s: Buffer.from(sig.s.slice(2), 'hex'),
    v: sig.yParity,
  });
}
