/** Node, network, validator and mempool routes: `/status`, `/health`, `/net_info`, `/lag_status`, … */
import { base64, hexUpper, int64, type Json, pubKeyJson, rfc3339Nano, validatorJson } from './encoding.ts';
import { describeStateSync, type StateSyncProgress, type SyncStatus } from '../../chain/sync-status.ts';
import {
  CatchingUpError,
  InvalidParamsError,
  LagTooHighError,
  NodeHaltedError,
  StateSyncingError,
} from './errors.ts';
import { paging, resolveHeight, type Route } from './route.ts';
import type { BlockView, ChainView, NetworkView } from './types.ts';

/** CometBFT 0.38's protocol versions: p2p 8, block 11. */
const PROTOCOL_VERSION = { p2p: '8', block: '11', app: '0' };
/** The reactor channels CometBFT 0.38 advertises (block sync, consensus, mempool, evidence, snapshots). */
const CHANNELS = '40202122233038606100';

/**
 * `catching_up` as /status reports it, and the gRPC/REST `syncing` answer: the node's view of the chain
 * is not current, because it is catching up or because it is halted. Clients written for CometBFT
 * (load balancers, relayers, `status` checks) read `catching_up: false` as "this node's latest block is
 * the chain's"; a halted node's is not, so it must not pass that check. `halted` and `halt_reason`
 * next to it say which of the two.
 */
export function notCurrent(sync: SyncStatus): boolean {
  return sync.catchingUp || sync.halted;
}

function syncInfo(chain: ChainView, sync: SyncStatus): Json {
  const latest = chain.latestHeight();
  const latestBlock = latest > 0 ? chain.block(latest) : undefined;
  const earliest = latest > 0 ? chain.earliestHeight() : 0;
  const earliestBlock = earliest > 0 ? chain.block(earliest) : undefined;
  const describe = (b: BlockView | undefined) => ({
    hash: b ? hexUpper(b.blockId.hash) : '',
    // CometBFT reports the header's app hash: the state before the block.
    appHash: b ? hexUpper(b.header.appHash) : '',
    height: b ? int64(b.header.height) : '0',
    time: b ? rfc3339Nano(b.header.time) : rfc3339Nano({ seconds: 0, nanos: 0 }),
  });
  const l = describe(latestBlock);
  const e = describe(earliestBlock);
  return {
    latest_block_hash: l.hash,
    latest_app_hash: l.appHash,
    latest_block_height: l.height,
    latest_block_time: l.time,
    earliest_block_hash: e.hash,
    earliest_app_hash: e.appHash,
    earliest_block_height: e.height,
    earliest_block_time: e.time,
    catching_up: notCurrent(sync),
    // Not in CometBFT's sync_info (its decoders ignore unknown fields): why catching_up is true when
    // the node is not behind anyone but cannot advance.
    halted: sync.halted,
    halt_reason: sync.reason ?? '',
    ...(sync.stateSync ? { state_sync: stateSyncJson(sync.stateSync) } : {}),
  };
}

/**
 * A state sync under way, in `sync_info` (not CometBFT's field either): its phase, the snapshot and
 * chunk it waits for, and since when.
 */
export function stateSyncJson(p: StateSyncProgress): Json {
  const n = (v: number | undefined) => (v === undefined ? undefined : String(v));
  const out: Record<string, string | undefined> = {
    phase: p.phase,
    seconds: n(p.seconds),
    snapshot_height: n(p.snapshotHeight),
    chunks: n(p.chunks),
    chunks_received: n(p.chunksReceived),
    waiting_for_chunk: n(p.waitingForChunk),
    seconds_since_last_chunk: n(p.secondsSinceLastChunk),
    missing_answers: n(p.missingAnswers),
    description: describeStateSync(p),
  };
  for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k];
  return out as Json;
}

/** The highest height any peer reports; our own height when no peer is ahead (or none exist). */
export function maxPeerHeight(network: NetworkView, own: number): number {
  let max = own;
  for (const p of network.peers()) if (p.height > max) max = p.height;
  return max;
}

export const infoRoutes: Record<string, Route> = {
  status: {
    params: [],
    handle: (_p, { deps, options }) => {
      const id = deps.identity;
      return {
        node_info: {
          protocol_version: PROTOCOL_VERSION,
          id: id.nodeId,
          listen_addr: id.listenAddr,
          network: id.chainId,
          version: id.version,
          channels: CHANNELS,
          moniker: id.moniker,
          other: { tx_index: 'on', rpc_address: options.rpcAddress() },
        },
        sync_info: syncInfo(deps.chain, deps.sync()),
        validator_info: {
          address: hexUpper(id.validator.address),
          pub_key: pubKeyJson(id.validator.pubKey),
          voting_power: int64(id.validator.votingPower),
        },
      };
    },
  },

  health: { params: [], handle: () => ({}) },

  net_info: {
    params: [],
    handle: (_p, { deps }) => {
      const peers = deps.network.peers();
      return {
        listening: deps.network.listening(),
        listeners: deps.network.listeners(),
        n_peers: int64(peers.length),
        peers: peers.map((p) => ({
          node_info: { id: p.id, listen_addr: p.listenAddr, moniker: p.moniker },
          is_outbound: false,
          remote_ip: '',
        })),
      };
    },
  },

  lag_status: {
    params: [],
    handle: (_p, { deps, options }) => {
      const current = deps.chain.latestHeight();
      const sync = deps.sync();
      const max = Math.max(maxPeerHeight(deps.network, current), sync.bestKnownHeight);
      const lag = max - current;
      if (sync.halted)
        throw new NodeHaltedError(
          `current_height ${current}, max_peer_height ${max}: the node cannot make progress: ${sync.reason}`,
        );
      if (sync.stateSync)
        throw new StateSyncingError(`current_height ${current}: ${describeStateSync(sync.stateSync)}`);
      if (lag > options.lagThreshold) throw new LagTooHighError(lag, options.lagThreshold);
      // behind by its own signals, by an unknown number of blocks: not a lag to report as small
      if (sync.catchingUp && lag <= 2)
        throw new CatchingUpError(
          `current_height ${current}, max_peer_height ${max}: catching up, and no peer's height shows how far behind it is`,
        );
      return { current_height: int64(current), max_peer_height: int64(max), lag: int64(lag) };
    },
  },

  abci_info: {
    params: [],
    handle: (_p, { deps }) => {
      const h = deps.chain.latestHeight();
      const appHash = deps.chain.appHashAfter(h);
      return {
        response: {
          data: 'chaind',
          version: deps.identity.appVersion,
          app_version: '0',
          last_block_height: int64(h),
          last_block_app_hash: appHash ? base64(appHash) : '',
        },
      };
    },
  },

  genesis: { params: [], handle: (_p, { deps }) => ({ genesis: deps.chain.genesis() as Json }) },

  validators: {
    params: ['height', 'page', 'per_page'],
    handle: (p, { deps }) => {
      const height = resolveHeight(deps.chain, p.int('height'));
      const all = deps.validators.validators(height);
      const { skip, perPage } = paging(p, all.length);
      const page = all.slice(skip, skip + perPage);
      return {
        block_height: int64(height),
        validators: page.map(validatorJson),
        count: int64(page.length),
        total: int64(all.length),
      };
    },
  },

  num_unconfirmed_txs: {
    params: [],
    handle: (_p, { deps }) => ({
      n_txs: int64(deps.mempool.size()),
      total: int64(deps.mempool.size()),
      total_bytes: int64(deps.mempool.totalBytes()),
      txs: null,
    }),
  },

  unconfirmed_txs: {
    params: ['limit'],
    handle: (p, { deps }) => {
      const limit = p.int('limit') ?? 30;
      if (limit < 1) throw new InvalidParamsError(`limit must be positive, got ${limit}`);
      const txs = deps.mempool.txs(Math.min(limit, 100));
      return {
        n_txs: int64(txs.length),
        total: int64(deps.mempool.size()),
        total_bytes: int64(deps.mempool.totalBytes()),
        txs: txs.map(base64),
      };
    },
  },
};
