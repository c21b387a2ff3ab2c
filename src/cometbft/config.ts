/**
 * CometBFT's own config.toml, rendered from chaind's configuration at every start into a private
 * CometBFT home inside the node's home. chaind's config.toml stays the one file an operator edits:
 * each of its keys that CometBFT implements maps onto CometBFT's spelling here, and the key files
 * (`genesis.json`, `node_key.json`, `priv_validator_key.json`, `priv_validator_state.json`) are the
 * ones `chaind init` wrote, used in place (they are in CometBFT's formats).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMETBFT_VERSION } from './binary.ts';

export interface CometConfigOptions {
  /** chaind's home (holds config/) and data directory (holds priv_validator_state.json). */
  home: string;
  dataDir: string;
  /** The private CometBFT home (its config/ and addrbook); its databases go under dataDir/cometbft. */
  cometHome: string;
  moniker: string;
  /** The ABCI socket chaind serves (unix://…). */
  proxyApp: string;
  /** chaind's log level; CometBFT logs at the nearest level it has. */
  logLevel: string;
  /** CometBFT's RPC: on a loopback port chaind alone uses (the public consensus RPC fronts it). */
  rpcLaddr: string;
  /** CometBFT's Prometheus endpoint, loopback (chaind's /metrics serves its series). */
  prometheusLaddr: string;
  metricsNamespace: string;
  p2p: {
    laddr: string;
    externalAddress: string;
    persistentPeers: string[];
    pex: boolean;
    maxPacketMsgPayloadSize: number;
    addrBookStrict: boolean;
    allowDuplicateIp: boolean;
  };
  mempool: { size: number; cacheSize: number; keepInvalidTxsInCache: boolean; maxTxBytes: number };
  consensus: {
    timeoutCommitMs: number;
    timeoutProposeMs: number;
    createEmptyBlocks: boolean;
    createEmptyBlocksIntervalMs: number;
  };
  statesync: {
    enable: boolean;
    rpcServers: string[];
    trustHeight: number;
    trustHash: string;
    trustPeriodMs: number;
    discoveryTimeMs: number;
  };
}

/**
 * How long a state-syncing CometBFT waits for a requested chunk before asking again (its
 * `chunk_request_timeout`): the unit of the snapshot pinning and restore stall rules (snapshots.ts,
 * restore-progress.ts).
 */
export const CHUNK_REQUEST_TIMEOUT_MS = 10_000;

/** CometBFT has debug, info and error (and none). */
function cometLogLevel(level: string): string {
  if (level === 'trace' || level === 'debug') return 'debug';
  if (level === 'info') return 'info';
  return 'error';
}

const q = (s: string) => JSON.stringify(s);
const ms = (n: number) => `"${n}ms"`;

export function renderCometConfig(o: CometConfigOptions): string {
  const home = (f: string) => q(join(o.home, 'config', f));
  // Vote and proposal steps take a fraction of the commit pause on a healthy network; these bound
  // how long a missing proposer or missing votes hold up a height.
  const step = Math.max(200, Math.round(o.consensus.timeoutCommitMs));
  return `# Rendered by chaind at every start from ${join(o.home, 'config', 'config.toml')}: edit that file, not this one.
version = ${q(COMETBFT_VERSION)}
proxy_app = ${q(o.proxyApp)}
moniker = ${q(o.moniker)}
db_backend = "goleveldb"
db_dir = ${q(join(o.dataDir, 'cometbft'))}
log_level = ${q(cometLogLevel(o.logLevel))}
log_format = "json"
genesis_file = ${home('genesis.json')}
priv_validator_key_file = ${home('priv_validator_key.json')}
priv_validator_state_file = ${q(join(o.dataDir, 'priv_validator_state.json'))}
priv_validator_laddr = ""
node_key_file = ${home('node_key.json')}
abci = "socket"
filter_peers = false

[rpc]
laddr = ${q(o.rpcLaddr)}
cors_allowed_origins = []
unsafe = false
max_open_connections = 900
timeout_broadcast_tx_commit = "10s"
max_body_bytes = 1000000
pprof_laddr = ""

[p2p]
laddr = ${q(o.p2p.laddr)}
external_address = ${q(o.p2p.externalAddress)}
seeds = ""
persistent_peers = ${q(o.p2p.persistentPeers.join(','))}
addr_book_file = ${q(join(o.cometHome, 'config', 'addrbook.json'))}
addr_book_strict = ${o.p2p.addrBookStrict}
max_num_inbound_peers = 40
max_num_outbound_peers = 10
flush_throttle_timeout = "10ms"
max_packet_msg_payload_size = ${o.p2p.maxPacketMsgPayloadSize}
send_rate = 20480000
recv_rate = 20480000
pex = ${o.p2p.pex}
seed_mode = false
allow_duplicate_ip = ${o.p2p.allowDuplicateIp}
handshake_timeout = "20s"
dial_timeout = "3s"

[mempool]
type = "flood"
recheck = true
broadcast = true
size = ${o.mempool.size}
cache_size = ${o.mempool.cacheSize}
keep-invalid-txs-in-cache = ${o.mempool.keepInvalidTxsInCache}
max_tx_bytes = ${o.mempool.maxTxBytes}
max_txs_bytes = 1073741824

[statesync]
enable = ${o.statesync.enable}
rpc_servers = ${q(o.statesync.rpcServers.join(','))}
trust_height = ${o.statesync.trustHeight}
trust_hash = ${q(o.statesync.trustHash)}
trust_period = ${ms(o.statesync.trustPeriodMs)}
discovery_time = ${ms(o.statesync.discoveryTimeMs)}
chunk_request_timeout = ${ms(CHUNK_REQUEST_TIMEOUT_MS)}
chunk_fetchers = "4"

[blocksync]
version = "v0"

[consensus]
wal_file = ${q(join(o.dataDir, 'cometbft', 'cs.wal', 'wal'))}
timeout_propose = ${ms(o.consensus.timeoutProposeMs)}
timeout_propose_delta = "200ms"
timeout_prevote = ${ms(step)}
timeout_prevote_delta = "200ms"
timeout_precommit = ${ms(step)}
timeout_precommit_delta = "200ms"
timeout_commit = ${ms(o.consensus.timeoutCommitMs)}
skip_timeout_commit = false
create_empty_blocks = ${o.consensus.createEmptyBlocks}
create_empty_blocks_interval = ${ms(o.consensus.createEmptyBlocksIntervalMs)}
peer_gossip_sleep_duration = "50ms"
peer_query_maj23_sleep_duration = "2s"

[storage]
discard_abci_responses = false

[tx_index]
indexer = "kv"

[instrumentation]
prometheus = true
prometheus_listen_addr = ${q(o.prometheusLaddr)}
max_open_connections = 3
namespace = ${q(o.metricsNamespace)}
`;
}

/** Writes the rendered config into the CometBFT home (created on first start). */
export function writeCometConfig(o: CometConfigOptions): string {
  mkdirSync(join(o.cometHome, 'config'), { recursive: true });
  mkdirSync(join(o.dataDir, 'cometbft'), { recursive: true });
  const path = join(o.cometHome, 'config', 'config.toml');
  writeFileSync(path, renderCometConfig(o));
  return path;
}
