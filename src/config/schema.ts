/**
 * The configuration schema: every key of config.toml and app.toml, with its default, its accepted
 * form and a one-line doc. Keys are written in the spec's spelling; `a-b` and `a_b` are both accepted
 * when reading. The typed `NodeConfig` is derived from this table, so nothing else restates a key.
 */
import { LOG_LEVELS } from '../util/logger.ts';
import { bool, duration, type Field, int, listenAddress, oneOf, port, str, strList } from './fields.ts';

/** Most RPC reader threads `[evm] http_reader_threads` may ask for. */
export const MAX_HTTP_READER_THREADS = 16;

/** Section '' holds a file's top-level keys. */
export type FileSchema = Record<string, Record<string, Field<any>>>;

export const CONFIG_TOML = {
  '': {
    moniker: str('node', 'A human-readable name for this node'),
    log_level: oneOf(LOG_LEVELS, 'info', 'Log verbosity: trace is the most detailed'),
    log_format: oneOf(
      ['plain', 'json'] as const,
      'plain',
      'Log output format: plain text lines or JSON lines',
    ),
    db_dir: str('data', 'Database directory, relative to the home directory unless absolute'),
  },
  rpc: {
    laddr: listenAddress('tcp://127.0.0.1:26657', 'Consensus RPC listen address', true),
    'cors-allowed-origins': strList([], 'Origins allowed to make cross-origin requests to the consensus RPC'),
    'max-body-bytes': int(1_000_000, 'Maximum size of a consensus RPC request body in bytes', 1),
    'max-open-connections': int(
      900,
      'Most connections the consensus RPC keeps open at once; more are refused (503) and closed',
      1,
    ),
    'lag-threshold': int(300, 'Blocks of lag behind the best peer above which /lag_status answers 417'),
  },
  p2p: {
    laddr: listenAddress('tcp://0.0.0.0:26656', 'P2P listen address', true),
    'external-address': str('', 'Address advertised to peers (host:port); empty means the listen address'),
    'persistent-peers': strList([], 'Peers to stay connected to, as <node_id>@<host>:<port>'),
    'max-packet-msg-payload-size': int(102400, 'Maximum P2P message payload in bytes', 1024),
    pex: bool(true, 'Exchange peer addresses with peers'),
    'addr-book-strict': bool(
      true,
      'Only accept routable peer addresses (set false for networks on private or loopback addresses)',
    ),
    'allow-duplicate-ip': bool(false, 'Accept several peers from one IP address (local networks)'),
  },
  mempool: {
    size: int(5000, 'Maximum number of transactions in the mempool', 1),
    'cache-size': int(10000, 'Number of recently seen transaction hashes remembered to refuse duplicates'),
    'keep-invalid-txs-in-cache': bool(
      false,
      'Keep hashes of rejected transactions cached so resubmission is refused',
    ),
    'ttl-duration': duration('5s', 'Evict a transaction that waited longer than this (0s disables)'),
    'ttl-num-blocks': int(10, 'Evict a transaction that waited more blocks than this (0 disables)'),
  },
  consensus: {
    engine: oneOf(
      ['cometbft', 'embedded'] as const,
      'cometbft',
      'What decides blocks: "cometbft" (network mode: CometBFT P2P and BFT consensus, chaind as its ABCI++ application) or "embedded" (a lone validator, as chaind dev runs)',
    ),
    'cometbft-binary': str(
      '',
      'The cometbft executable for network mode; empty: the one `npm run install:cometbft` builds',
    ),
    'timeout-propose': duration(
      '1s',
      'Network mode: how long validators wait for a proposal before voting nil',
    ),
    'timeout-commit': duration('400ms', 'Pause between committing a block and proposing the next'),
    'create-empty-blocks': bool(true, 'Produce blocks even when the mempool is empty'),
    'create-empty-blocks-interval': duration('0s', 'With empty blocks on, the interval between empty blocks'),
  },
  statesync: {
    enable: bool(false, 'Bootstrap state from a snapshot instead of replaying blocks'),
    'rpc-servers': strList([], 'Trusted consensus RPC servers used to verify the snapshot'),
    'trust-height': int(0, 'Height of the trusted block'),
    'trust-hash': str('', 'Hash of the trusted block (hex)', (s) =>
      s === '' || /^[0-9a-fA-F]{64}$/.test(s) ? undefined : `${JSON.stringify(s)} is not a 32-byte hex hash`,
    ),
    'trust-period': duration('168h', 'How long the trusted block stays trusted'),
    'discovery-time': duration(
      '15s',
      'How long a state-syncing node gathers snapshot offers from its peers before it picks one (CometBFT allows no less than 5s)',
      5000,
    ),
  },
  instrumentation: {
    prometheus: bool(true, 'Serve Prometheus metrics'),
    'prometheus-listen-addr': listenAddress(
      '127.0.0.1:26660',
      'Prometheus metrics listen address (":26660" or "0.0.0.0:26660" exposes it on every interface)',
      false,
    ),
    namespace: str('tendermint', 'Prefix of consensus metric names'),
    'max-open-connections': int(
      3,
      'Most connections the metrics endpoint keeps open at once; more are refused (503) and closed',
      1,
    ),
  },
} satisfies FileSchema;

export const SS_BACKENDS = ['pebbledb', 'rocksdb', 'lmdb'] as const;
export const DEFAULT_LEGACY_APIS = ['chain_getChainAddress', 'chain_getEVMAddress', 'chain_getCosmosTx'];

export const APP_TOML = {
  '': {
    'minimum-gas-prices': str(
      '0.001uchain',
      'Minimum fee per unit of gas this node accepts for Cosmos transactions (e.g. "0.001uchain"; 1 gwei of EVM gas = 0.001uchain)',
      (s) =>
        /^(\d+(\.\d{1,18})?uchain)?$/.test(s.trim()) ? undefined : `${JSON.stringify(s)} is not a gas price`,
      'a decimal amount of uchain such as "0.001uchain"',
    ),
  },
  api: {
    enable: bool(true, 'Serve the REST API'),
    address: listenAddress(
      'tcp://127.0.0.1:1317',
      'REST API listen address ("tcp://0.0.0.0:1317" exposes it on every interface)',
      true,
    ),
    'max-open-connections': int(
      1000,
      'Most connections the REST API keeps open at once; more are refused (503) and closed',
      1,
    ),
  },
  grpc: {
    enable: bool(true, 'Serve gRPC'),
    address: listenAddress(
      '127.0.0.1:9090',
      'gRPC listen address ("0.0.0.0:9090" exposes it on every interface)',
      false,
    ),
    'max-open-connections': int(200, 'Most connections gRPC keeps open at once; more are closed at once', 1),
    'idle-timeout': duration('5m', 'A gRPC connection with no call for this long is closed', 1000),
  },
  'state-commit': {
    'sc-enable': bool(true, 'State commit store; must be true (it computes the app hash)'),
    'sc-async-commit-buffer': int(
      100,
      'Blocks the commit changelog may buffer before a write waits (0 = synchronous)',
    ),
    'sc-keep-recent': int(1, 'Older state commit snapshots to keep'),
    'sc-snapshot-interval': int(10000, 'Blocks between state commit snapshots', 1),
  },
  'state-store': {
    'ss-enable': bool(
      true,
      'State store that serves historical queries; false serves the latest state only (no history)',
    ),
    'ss-backend': oneOf(
      SS_BACKENDS,
      'pebbledb',
      'State store engine; "lmdb" is an alias of the default "pebbledb"',
    ),
    'ss-async-write-buffer': int(
      100,
      'Change sets the state store may queue in its changelog (0 = synchronous)',
    ),
    'ss-keep-recent': int(100000, 'Versions of history to keep (0 keeps everything)'),
    'ss-prune-interval': int(600, 'Seconds between pruning runs', 1),
    'evm-ss-split': bool(false, 'Keep EVM state in dedicated EVM state store databases under data/evm_ss/'),
    'evm-ss-separate-dbs': bool(false, 'With the split, one EVM state store database per kind of EVM data'),
    'evm-ss-db-directory': str('', 'Directory of the EVM state store; empty means data/evm_ss/'),
  },
  'state-sync': {
    'snapshot-interval': int(0, 'Blocks between state-sync snapshots (0 disables)'),
    'snapshot-keep-recent': int(2, 'State-sync snapshots to keep'),
    // CometBFT drops a chunk message above 16e6 bytes: 15 MiB leaves room for its envelope
    'snapshot-chunk-bytes': int(
      10 * 1024 * 1024,
      'Bytes per state-sync snapshot chunk (a peer fetches one chunk per message)',
      1024,
      15 * 1024 * 1024,
    ),
  },
  evm: {
    http_enabled: bool(true, 'Serve the EVM JSON-RPC over HTTP'),
    http_port: port(8545, 'EVM JSON-RPC HTTP port'),
    ws_enabled: bool(true, 'Serve the EVM JSON-RPC over WebSocket'),
    ws_port: port(8546, 'EVM JSON-RPC WebSocket port'),
    read_header_timeout: duration(
      '10s',
      "Time from a request's first byte to the end of its headers; then 408 and the connection closes",
      1,
    ),
    read_timeout: duration(
      '30s',
      "Time from a request's first byte to the end of its body; then 408 and the connection closes",
      1,
    ),
    idle_timeout: duration('65s', 'An HTTP keep-alive connection idle this long is closed', 1),
    http_max_connections: int(
      1000,
      'Most connections the EVM JSON-RPC HTTP server keeps open at once; more are refused (503) and closed',
      1,
    ),
    http_reader_threads: str(
      '0',
      'Extra threads serving the EVM JSON-RPC HTTP port beside the main one: they answer plain reads of committed blocks and state themselves and pass every other call to the main thread; 0 serves from the main thread only; auto is 1 on a machine with 2 or more cores, else 0',
      (s) =>
        s === 'auto' || (/^\d+$/.test(s) && Number(s) <= MAX_HTTP_READER_THREADS)
          ? undefined
          : `${JSON.stringify(s)} is neither auto nor a number of threads from 0 to ${MAX_HTTP_READER_THREADS}`,
      `auto or an integer from 0 to 16`,
    ),
    ws_max_connections: int(
      1000,
      'Most connections the EVM JSON-RPC WebSocket server keeps open at once; more are refused (503) and closed',
      1,
    ),
    max_buffered_answer_bytes: int(
      16 * 1024 * 1024,
      'Bytes of answers a JSON-RPC connection may leave unread; past them its further requests wait unread (a WebSocket client is cut when its notifications pass them, or its answers stay past them for a ping interval)',
      65536,
    ),
    ws_max_requests_in_flight: int(
      16,
      'Requests of one WebSocket connection run at once; its further messages wait unread',
      1,
    ),
    ws_ping_interval: duration(
      '30s',
      'A WebSocket connection is pinged this often, and cut if it has not answered the previous ping',
      100,
    ),
    cors_origins: str(
      '',
      'Origins whose web pages may call the EVM JSON-RPC (comma-separated, * for any); empty sends no CORS headers',
    ),
    filter_timeout: duration('120s', 'A filter unused for this long expires'),
    max_filters: int(
      10_000,
      'Most polling filters installed at once (eth_ and chain_ each); more are refused',
      1,
    ),
    max_pending_filter_hashes: int(
      10_000,
      'Pending-tx hashes kept for the pending-transaction filters together; a filter polled after more arrived gets an error naming the loss',
      1,
    ),
    max_log_criteria: int(
      100_000,
      'Addresses and topics the log filters hold together (and, apart, the logs subscriptions); more are refused',
      1,
    ),
    max_subscriptions: int(10_000, 'Most eth_subscribe subscriptions of all connections together', 1),
    max_subscriptions_per_connection: int(
      100,
      'Most eth_subscribe subscriptions of one WebSocket connection',
      1,
    ),
    max_log_no_block: int(10000, 'Maximum logs returned by an open-ended log query', 1),
    max_blocks_for_log: int(2000, 'Maximum block range of a log query', 1),
    simulation_gas_limit: int(
      10_000_000,
      'Gas limit of eth_call and eth_estimateGas when none is given',
      21000,
    ),
    simulation_evm_timeout: duration('60s', 'Time limit of one eth_call or eth_estimateGas'),
    rpc_yields_to_blocks: bool(
      true,
      'While a network node executes and commits a decided block, long RPC calls (log queries, simulations, traces, large answers) pause at their next yield point and heavy calls do not start, so following the chain comes before serving reads; false: they share the event loop with the block',
    ),
    native_simulator: bool(
      true,
      'eth_call runs on the native simulator (revm, built by `npm run build:native-sim`) when it is built and the call is one it runs exactly; false: always the JS EVM',
    ),
    block_engine: oneOf(
      ['auto', 'revm', 'ethereumjs'] as const,
      'auto',
      'The EVM that runs blocks (proposals, finalized and replayed blocks, the pending block): "auto" revm when the native addon is built (`npm run build:native-sim`), else ethereumjs; "revm" refuses to start without the addon; "ethereumjs" always the JS EVM. Both give the same blocks and app hashes, so nodes of a network may differ in this; tracing always runs on ethereumjs',
    ),
    max_concurrent_simulations: int(
      4,
      'eth_call, eth_estimateGas and eth_createAccessList calls run at once; more wait their turn (past 16 waiting per call allowed: -32005 naming this key)',
      1,
    ),
    max_concurrent_log_queries: int(
      2,
      'eth_getLogs and eth_getFilterLogs queries (and their chain_ forms) run at once; more wait their turn (past 16 waiting per call allowed: -32005 naming this key)',
      1,
    ),
    trace_timeout: duration('30s', 'Time limit of one debug_trace* call'),
    max_concurrent_trace_calls: int(10, 'debug_trace* calls served at once', 1),
    max_trace_lookback_blocks: int(10000, 'How far back debug_trace* and trace_* may trace', 1),
    max_trace_filter_blocks: int(
      10000,
      'Widest block range of one trace_filter call (a wider one is refused with an error naming this key)',
      1,
    ),
    max_trace_response_bytes: int(
      16 * 1024 * 1024,
      'Bytes of output one debug_trace* answer may hold (struct logs with their stack, memory and storage; call frames); a trace that passes them stops with an error naming this key (0: no limit)',
    ),
    batch_request_limit: int(1000, 'Maximum requests in one JSON-RPC batch', 1),
    max_response_bytes: int(
      25_000_000,
      "Bytes of JSON one JSON-RPC answer may take, a batch's answers together: a larger result (eth_getLogs, eth_call, ...) is refused with an error naming this key, and in a batch the answer that passes it and the requests after it get -32003 'response too large'",
      1024,
    ),
    max_request_body_bytes: int(5_242_880, 'Maximum JSON-RPC request body in bytes', 1024),
    max_json_depth: int(
      64,
      'Deepest nesting of arrays and objects a JSON-RPC request may have (deeper: -32600)',
      2,
      1000,
    ),
    enabled_legacy_chain_apis: strList(DEFAULT_LEGACY_APIS, 'Deprecated chain_*/chain2_* methods to serve'),
    deny_list: strList([], 'JSON-RPC methods this node refuses'),
    disabled_namespaces: strList(
      [],
      'JSON-RPC namespaces this node refuses whole, by the part of a method name before its first _ (e.g. trace, ots, debug): their methods answer -32601 naming this key, and rpc_modules leaves them out',
    ),
    http_api: strList(
      ['*'],
      'JSON-RPC namespaces served over HTTP (as geth\'s --http.api), e.g. ["eth", "net", "web3"]; "*" serves every namespace: a method of another answers -32601 naming this key, and rpc_modules over HTTP leaves it out',
    ),
    ws_api: strList(
      ['*'],
      'JSON-RPC namespaces served over WebSocket (as geth\'s --ws.api); "*" serves every namespace: a method of another answers -32601 naming this key, and rpc_modules over WebSocket leaves it out',
    ),
    client_quota: int(
      500,
      'Units of work per second one client (IP address) may spend on the EVM JSON-RPC, each method weighing what it costs (eth_blockNumber 1, eth_call 20, debug_trace* 100+); over it: -32005 and HTTP 429 with Retry-After. 0: no quota',
    ),
    client_quota_burst: int(
      2000,
      'Units one client may spend at once before client_quota paces it (the size of its token bucket)',
      1,
    ),
    quota_loopback: bool(
      false,
      'Apply client_quota to loopback clients (127.0.0.0/8, ::1) too; by default they are not charged (a local dev chain, a local indexer)',
    ),
    trusted_proxies: strList(
      ['127.0.0.0/8', '::1'],
      'Reverse proxies (IPv4 or IPv6 addresses or CIDR networks) whose X-Forwarded-For names the client client_quota charges: the right-most address that is not itself a trusted proxy; from any other peer X-Forwarded-For is ignored. The default trusts loopback, where a reverse proxy in front of the loopback-only EVM JSON-RPC connects from',
    ),
    jwt_secret_file: str(
      '',
      "A file holding a 32-byte hex secret (as geth's --authrpc.jwtsecret): when set, every EVM JSON-RPC HTTP request and WebSocket upgrade needs Authorization: Bearer <HS256 JWT> with iat within 60 s (else 401). Relative to the home directory unless absolute; empty: no authentication",
    ),
  },
} satisfies FileSchema;

export const FILES = {
  'config.toml': CONFIG_TOML,
  'app.toml': APP_TOML,
} as const;
export type ConfigFileName = keyof typeof FILES;

/** Keys of older builds that must not be silently ignored (spec: Versioning 2). */
export const LEGACY_KEYS: Record<string, string> = {
  'evm-ss-write-mode': 'evm-ss-split',
  'evm-ss-read-mode': 'evm-ss-split',
};

type Camel<S extends string> = S extends `${infer A}-${infer B}`
  ? `${A}${Capitalize<Camel<B>>}`
  : S extends `${infer A}_${infer B}`
    ? `${A}${Capitalize<Camel<B>>}`
    : S;

type SectionValues<Sec> = {
  -readonly [K in keyof Sec as Camel<K & string>]: Sec[K] extends Field<infer T> ? T : never;
};
type TopLevel<S> = S extends { '': infer Top } ? SectionValues<Top> : unknown;
type FileValues<S> = TopLevel<S> & {
  -readonly [Sec in Exclude<keyof S, ''> as Camel<Sec & string>]: SectionValues<S[Sec]>;
};

export type ConfigToml = FileValues<typeof CONFIG_TOML>;
export type AppToml = FileValues<typeof APP_TOML>;
export interface NodeConfig {
  config: ConfigToml;
  app: AppToml;
}

export function camel(name: string): string {
  return name.replace(/[-_]([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** The spelling-insensitive form of a key: `a_b` and `a-b` compare equal. */
export function normalizeKey(key: string): string {
  return key.replace(/_/g, '-');
}
