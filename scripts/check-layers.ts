/**
 * Checks the source tree's structure and exits 1 listing every problem:
 * - layers: a folder under src/ imports only from its own folder and from folders of a lower layer;
 *   `rpc/` never imports storage; only `execution/` imports @ethereumjs;
 * - import cycles: no two files import each other, directly or through others (static imports and
 *   re-exports, type-only ones included: a type cycle is still two files that cannot be understood
 *   apart; dynamic `import()` is how optional parts load late, so it does not count);
 * - ARCHITECTURE.md: its layer table is the one generated from LAYERS below, which is where a layer's
 *   description is edited (`npm run docs` rewrites the table).
 *
 * Usage: node scripts/check-layers.ts [--root <dir containing src/>] [--write-docs]
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

interface LayerDoc {
  folder: string;
  /** What the folder holds and decides, for ARCHITECTURE.md. */
  owns: string;
  /** What it must not do, for ARCHITECTURE.md. */
  mustNot: string;
}

interface Layer extends LayerDoc {
  /** Sub-folders with a row of their own in ARCHITECTURE.md; for the rules they are this layer. */
  parts?: LayerDoc[];
}

/** Lowest first. Folders in one group are peers: neither may import the other. */
export const LAYERS: Layer[][] = [
  [
    {
      folder: 'primitives',
      owns: "byte helpers, the one growable byte writer and bounds-checked reader of every binary format (`byte-io.ts`), the chain's identity constants (prefixes, denom, wei per uchain)",
      mustNot: 'import anything of ours',
    },
  ],
  [
    {
      folder: 'util',
      owns: '`ChainError` and typed errors, the closed union of their stable codes (`error-codes.ts`, each mapped to a JSON-RPC code in `rpc/server/errors.ts`), the `Logger` interface (and an in-memory logger for tests), the directory lock, the out-of-disk error every store turns a full disk into (`out-of-disk.ts`: ENOSPC/EDQUOT in the form each engine throws it, with the directory), small data structures for hot paths (LRU, a byte-keyed map, a byte arena)',
      mustNot: 'know about any module',
    },
  ],
  [
    {
      folder: 'crypto',
      owns: 'hashing, Ed25519 node/validator keys in CometBFT JSON, secp256k1 accounts (EVM and bech32 addresses, HD derivation)',
      mustNot: 'do I/O',
    },
  ],
  [
    {
      folder: 'codec',
      owns: 'canonical CometBFT encodings: protobuf writer, RFC-6962 Merkle root, header hash (`vectors/block-header.json`), commit and vote sign bytes, validator-set hash',
      mustNot: 'hold state',
    },
  ],
  [
    {
      folder: 'storage/kv',
      owns: 'the `KVStore` interface (get/getSync, bounded iterate/iterateSync, atomic batches checked before any engine touches them, snapshots) and its engines: lmdb (default), rocksdb-native (optional, loaded on demand; a typed error names the package if missing), memory (unit tests); one conformance suite for all',
      mustNot: 'know versions, stores or encodings; take directory locks (callers do)',
    },
  ],
  [
    {
      folder: 'storage/wal',
      owns: "the one write-ahead log (`segmented-log.ts`) under the State Store changelogs and State Commit's logs: versioned, checksummed records in segment files named by their first version, a torn tail cut on open, a format header per segment, and reading (never appending to) the segments written before it (docs/adr/0010-one-write-ahead-log.md)",
      mustNot:
        'know what a record holds (its owner brings the codec and its version), which store uses it, or when a segment should start',
    },
  ],
  [
    {
      folder: 'storage/ss',
      owns: "State Store: the MVCC encoding (escaped keys, newest-first versions), latest/earliest metadata, changelog (on `storage/wal`) + async group-commit writer, pruning, Cosmos/EVM routing of `evm-ss-split` (`evm-keys.ts`), startup checks a/b/c and their log events, the refusal of a store that lacks State Commit's history (a changed `ss-backend`: the node opens SC first and passes its version), operator rollback, a lock per database directory, synchronous reads at a version (`syncReaderAt`, for trace replays), a read-only view of the lmdb databases for another thread of the process (`reader.ts`, RPC reader threads)",
      mustNot:
        'compute hashes or proofs; read config files; ever fall back from one half of the split to the other',
    },
    {
      folder: 'storage/sc',
      owns: 'State Commit: the latest state execution reads and writes, and the app hash — memiavl (`memiavl/`: one Cosmos IAVL tree per store; changelog + fixed-record snapshots under `data/state_commit/memiavl`), flatkv (`flatkv/`: EVM state in flat lmdb tables with the lattice hash, `data/state_commit/flatkv`), commit info, the log both write (`changelog.ts`, on `storage/wal`), ICS23 proofs, rollback, state-sync export/import (see `src/storage/sc/README.md`)',
      mustNot:
        'import storage/ss or anything higher; know blocks, txs or config files; serve history beyond its kept versions; change hashing, apply order or tree-shape rules without a chain upgrade',
    },
    {
      folder: 'storage/blocks',
      owns: "blocks by height and hash, EVM and Cosmos tx indexes, receipts with block-wide log indexes, per-block blooms, `getLogs`, the tx event index (`event-index.ts`), the address appearance index (`address-index.ts`: each address's EVM txs in block order, with a per-height list of its addresses for rollback and pruning) and the one definition of an EVM tx's events (`tx-events.ts`); one atomic durable write per height; a read-only opener for another thread of the process (`openBlockStoreReader`)",
      mustNot: 'execute anything; know about SC/SS',
    },
  ],
  [
    {
      folder: 'state',
      owns: "`StateOverlay`: the block's write buffer over the last committed state, journaled checkpoints, sorted change sets",
      mustNot: 'know what keys mean',
    },
  ],
  [
    {
      folder: 'app',
      owns: "modules over the overlay: `auth` (Any(BaseAccount)), `bank` (uchain + wei remainder), `staking/` (validators, delegations, unbonding delegations and redelegations, params, the bonded and not-bonded pools as bank balances, the five staking messages, the end of a block (matured unbondings, the bonded set and its validator updates), genesis, and `stakingForSlashing`), `block-hooks.ts` (the begin and end of every block), `evm` (nonce, code, storage, address association, fee collector), `accounts.ts` (an EVM account as readers see it: the one place the balance rule joins association and bank); Cosmos tx decoding, admission and delivery (`cosmos-tx.ts`, `cosmos-deliver.ts`; each message kind's decoding and execution registered in `msg-registry.ts`, bank's send in `msg-send.ts`, bank's events in `bank-events.ts`) including the fee-less association tx of `chain_associate` (`association-tx.ts`: one `MsgAssociate`, authenticated by its secp256k1 signature); `store-keys.ts` (the consensus-critical key layout); `genesis.ts` + `init-chain.ts`; `slashing/` (signing infos and missed-blocks bitmaps, downtime jailing and double-sign tombstoning at the start of a block, `MsgUnjail`, its params and the evidence age limits; over staking only through `staking/for-slashing.ts`)",
      mustNot: 'import ethereumjs (only execution/ does)',
    },
  ],
  [
    {
      folder: 'execution',
      owns: "the only user of `@ethereumjs`: chain `Common` (Prague), native ecrecover, KZG for point evaluation (`kzg.ts`: micro-eth-signer over the mainnet trusted setup, loaded on first use), tx decoding/wrapping, signing with a held key (`signing.ts`: a dev chain's transactions, EIP-191 messages and EIP-712 typed data, on micro-eth-signer), `ChainStateManager` (ethereumjs state over the modules), `BlockExecutor` (a block's transactions on the process's block EVM, `block-engine.ts`: revm through the native addon, `revm-tx.ts`, whose changes it writes into the overlay, or ethereumjs's runTx; plus the chain's fee and association rules, for both; for a block that will be stored, the addresses of each tx's call tree for the address index, from the EVM's `beforeMessage` and `newContract` events: per message, not per opcode, so not a tracer)",
      mustNot: 'write to stores; decide block contents',
      parts: [
        {
          folder: 'execution/tracing',
          owns: "debug_trace* tracers in geth 1.14's formats (struct logger, callTracer, flatCallTracer, prestateTracer, 4byteTracer, noopTracer), the trace_* tracer (`parity-tracer.ts`: the callTracer's tree rendered in the Parity format by `parity.ts`, the one rendering flatCallTracer uses too, and OpenEthereum's stateDiff, `state-diff.ts`), eth_simulateV1's ERC-7528 transfer logs (`transfer-logs.ts`), fed by EVM listeners that exist only while a tracer is attached (`BlockExecutor.execute`/`Simulation.run` take an optional tracer); trace deadline and abort",
          mustNot: 'know blocks, stores or RPC; register EVM hooks for untraced execution',
        },
        {
          folder: 'execution/simulation',
          owns: "eth_call, eth_estimateGas, eth_createAccessList and eth_simulateV1's runs: `Simulation` (`simulate.ts`; for eth_simulateV1, messages whose effects stay, block after block, with geth's precompile overrides) over pooled VMs (`pool.ts`), state and block overrides over a read-only view of a height (`state.ts`), the simulation deadline (`deadline.ts`), gas estimation and access lists (`estimate.ts`); the native binding (`native-binding.ts`: revm via N-API, built from `native/evm-sim` by `npm run build:native-sim` or `npm ci`): eth_call's native path, which hands the JS EVM every call it cannot answer exactly, and the `execute` block execution calls",
          mustNot:
            'write to stores; share a VM with block execution; let a simulation other than eth_call depend on the native simulator',
        },
      ],
    },
  ],
  [
    {
      folder: 'mempool',
      owns: 'admission with geth-worded rejections, per-sender nonce queues, replacement, TTL, seen-hash cache, reaping by effective tip',
      mustNot: 'read stores directly (it gets an `AccountReader`)',
    },
  ],
  [
    {
      folder: 'fork',
      owns: "a dev chain forked from another chain (`chaind dev --fork-url`): the fork target recorded in the home (`fork.ts`), the EVM account keys a fork reads from the remote and the tombstone that keeps a local delete from reading the remote again (`keys.ts`), synchronous JSON-RPC to the remote from a thread of its own (`remote.ts`, `remote-thread.ts`), the persisted cache of fetched values (`cache.ts`), and State Commit and the State Store wrapped to read the remote's state below their own (`forked-state.ts`), which every reader above them sees without knowing about forks",
      mustNot:
        'be read by anything but node/ (which wraps the stores) and cli/; fetch a value at any block but the fork block',
    },
  ],
  [
    {
      folder: 'chain',
      owns: "the block pipeline (execute → block store beside SS → SC → notify), how every block executes (`Chain.execute`: proposed, decided, replayed, pending or traced, the one caller of `executeBlock`; `propose` and `executeDecided` keep the next block's execution for its FinalizeBlock, `kept-executions.ts`, keyed by the consensus info too), the block hooks every block runs through (`executeBlock` calls app/'s beginBlock with the block's consensus info and endBlock; a stored block's consensus info and what its record keeps of it, `consensus-info.ts`), genesis commit, crash recovery by replay with app-hash checks, base-fee schedule, the state at a height (`state-at.ts`: SC for the latest, SS for history, cached per version, read through app/'s readers; every reader outside execution uses it), the `Engine` and `TxSubmission` interfaces any consensus engine provides (`engine.ts`), faithful re-execution of a stored block for debug_trace* (`trace-replay.ts`: `Chain.execute` over SS version h, tracers only on the traced runs; over `syncReaderAt`, or for engines without synchronous reads (rocksdb) over values loaded with async gets, rerun until a run reads nothing unloaded), the pending block (`pending-block.ts`: the pools' executable txs run on the latest state in a throw-away overlay, for `pending` reads and simulations; `pending-state.ts`: the state `pending` reads see, its writes over its parent's state)",
      mustNot: 'sign or schedule blocks',
    },
  ],
  [
    {
      folder: 'producer',
      owns: "the embedded engine of `chaind dev`: single-validator block production, header building (CometBFT hashing), its own vote for the parent as each block's consensus info (its validator set stays its own: validator updates are computed, not applied), precommit signing with the double-sign guard (persisted; in memory on a throwaway dev home), on-demand mining's batch size (`batch-size.ts`), the producer's stall rule (`health.ts`) over the engine-neutral `SyncStatus` of `chain/sync-status.ts` (catching up, halted and why, latest and best known height: what every health signal reads)",
      mustNot: 'execute transactions itself',
    },
    // the two engines are peers: neither may import the other
    {
      folder: 'cometbft',
      owns: "network mode's engine: the ABCI++ application over the block pipeline (`app.ts`; the votes and misbehavior of its requests as the block hooks' consensus info, and endBlock's validator updates as FinalizeBlock answers them, `consensus-info.ts`), the socket protocol (`abci/`), the pinned version and binary lookup (`binary.ts`), CometBFT's config rendered from chaind's (`config.ts`), the supervised child and its log re-emitted with the spec's lines (`process.ts`, `log-lines.ts`), the client of its loopback RPC, its blocks (`block-json.ts`), its health, its rollback, state-sync snapshots on disk, kept beyond keep-recent while peers fetch them, and their restore through chain/ (`snapshots.ts`; see docs/network-mode.md), a restore's progress as the health signals report it and its stall rule (`restore-progress.ts`), a snapshot as one checked archive file for operators (`snapshot-archive.ts`)",
      mustNot:
        'import rpc/, config/ or node/ (node/network-engine.ts and node/network-settings.ts map config onto it); execute blocks other than through chain/',
    },
  ],
  [
    {
      folder: 'rpc/codecs',
      owns: "wire ↔ domain: geth hex rules, block references (incl. EIP-1898), log filters, geth-shaped block/tx/receipt/log objects, Ethereum trie roots of a block's txs and receipts; for the Cosmos-facing peers, their shared views (`cosmos.ts`: incl. Simulate's shapes), the tx search over CometBFT's query language (`tx-search.ts`) and a block header's JSON fields, which CometBFT's JSON and grpc-gateway's write with their own value encodings (`header-json.ts`)",
      mustNot: 'hold state',
    },
  ],
  [
    {
      folder: 'rpc/server',
      owns: "the node:http JSON-RPC transport (envelope, batches, limits, CORS, gzip, deny list, disabled namespaces; plain keep-alive POSTs answered on a fast path from the socket's bytes with each turn's answers written together, every other request by node:http) and the WebSocket transport (same dispatcher, per-connection methods, geth's `eth_subscription` envelope, a notification never overtakes its answer, slow clients dropped), the one dispatcher that decodes params before any handler runs, the one ChainError → JSON-RPC code table, per-method RPC metrics (recorded only in the dispatcher), what an RPC reader thread answers itself and what it forwards (`reader-payloads.ts`), a connection cap that threads sharing a port count together, admission ahead of dispatch (`admission.ts`: the HS256 JWT of `jwt.ts`, the client found through trusted proxies in `client-address.ts`, its cost-weighted token bucket in the shared-memory table of `quota.ts`, namespaces served per transport)",
      mustNot:
        "know any method but `rpc_modules`, which the dispatcher answers from its own table, as geth's server does",
    },
  ],
  [
    {
      folder: 'rpc/evm',
      owns: "eth_/net_/web3_ method tables over the narrow `ChainReader`/`TxPool` interfaces of `backend.ts`; which heights may be served is decided once, in `resolve.ts`; eth_simulateV1's geth rules (block order and gaps, gas, error codes, result shape) in `simulate-v1.ts`; polling filters tracked by height (`filters*.ts`) and subscriptions (`subscriptions.ts`: each committed height reported once, in order); debug_trace* (`debug.ts`: geth TraceConfig codec, and every trace limit — timeout cap, concurrency, lookback — in `Tracing`, which the legacy chain_trace* methods and trace_* reuse); trace_* in the Parity format over the narrow `ParityTraceBackend` of `trace-backend.ts` (`trace.ts`; `trace-filter.ts`: trace_filter's matching and pagination over a `TraceFilterSource` of candidate txs, which an address index may implement); Otterscan's ots_* (`ots.ts`: address history over the block store's address index, call lists and internal operations from the callTracer's frames under `Tracing`'s limits); eth_sendRawTransactionSync waits for the committed block holding a tx, each ended by that block, its timeout or the node stopping (`send-sync.ts`); what each method weighs against a client's quota (`method-costs.ts`, the one table)",
      mustNot: 'import storage/ (node/adapters/evm-*.ts implement its interfaces)',
    },
    {
      folder: 'rpc/consensus',
      owns: 'the CometBFT-style consensus RPC (26657): GET and JSON-RPC forms, abci_query over the Cosmos gRPC query paths (and Simulate), broadcasts, `/websocket` subscriptions (`websocket.ts`; relayed to CometBFT in network mode)',
      mustNot: 'import storage/ (node/adapters/consensus-rpc.ts)',
    },
    {
      folder: 'rpc/rest',
      owns: 'the Cosmos SDK REST API (1317): grpc-gateway JSON for staking/bank/auth (answered by the same gRPC query code as `abci_query`), tendermint node info/blocks, tx broadcast, lookup, search and simulate, the `x-cosmos-block-height` header; `{code,message,details}` errors',
      mustNot: 'import storage/ or its peer rpc/consensus (node/adapters/rest.ts joins them)',
    },
    {
      folder: 'rpc/grpc',
      owns: 'the gRPC server (9090, grpc-js): bank/auth/staking query services (the shared `GRPC_QUERIES`), `cosmos.tx.v1beta1.Service` (BroadcastTx, GetTx, GetTxsEvent, Simulate) and `cosmos.base.tendermint.v1beta1.Service`, over service definitions built from cosmjs-types codecs, plus server reflection from the descriptor set compiled from the Cosmos SDK and CometBFT .proto files (`descriptor-set.binpb`, `npm run gen:grpc-descriptors`)',
      mustNot: 'import storage/ or its rpc/ peers (node/adapters/grpc.ts joins them)',
    },
  ],
  // The deprecated chain_/chain2_ views and the dev chain's methods are built on the eth_ ones
  // (resolver, filters, formatters, the fee oracle, simulations).
  [
    {
      folder: 'rpc/dev',
      owns: "the dev chain's methods under anvil's and Hardhat's names (accounts and signing, mining control, time, node identity, snapshots and resets) over the narrow `DevNode` of `backend.ts`, which node/ implements over the embedded producer, its block clock and the dev keys; the names a node without them answers -32601 with the reason (`whyDevMethodNotServed`)",
      mustNot:
        'import storage/ or the rpc/ peers other than rpc/evm, which it builds on; sign with anything but execution/signing.ts',
    },
    {
      folder: 'rpc/legacy',
      owns: "the deprecated `chain_*`/`chain2_*` surface, HTTP-only: the allowlist gate of `[evm] enabled_legacy_chain_apis` (`gate.ts`: the blocked-call error, the `Chain-Legacy-RPC-Deprecation` header, the WebSocket refusal), address resolution, `chain_associate`, Cosmos/EVM tx lookups (`methods.ts`) over the narrow `LegacyBackend`; the synthetic block/tx/receipt/log/filter views in `synthetic/` (one rule for every view's order and indices in `views.ts`, over the narrow `SyntheticBackend`, which node/adapters/legacy-synthetic-backend.ts implements; chain_ filters in a FilterStore of their own)",
      mustNot:
        'import storage/ or the rpc/ peers other than rpc/evm, which it builds on (node/adapters/legacy-backend.ts implements its interfaces)',
    },
  ],
  [
    {
      folder: 'config',
      owns: 'the configuration schema (`schema.ts`) from which types, defaults, validation (`load.ts`), rendering (`render.ts`), environment names and CLI flags (`keys.ts`) all derive',
      mustNot: 'be imported by modules: each module owns its options type, `node/` maps config onto it',
    },
  ],
  [
    {
      folder: 'node',
      owns: "the composition root: builds each module once, in order, into one typed `NodeModules` under a `Lifecycle` (`node.ts`: the start's steps in order, after the configurations refused up front (`start-checks.ts`); stores, chain, mempools, the engine and where txs are submitted (`engine.ts` chooses: the embedded producer in `embedded-engine.ts`, or CometBFT in `network-engine.ts`, which answers its ABCI queries and whose RPC the Cosmos-facing listeners defer to), EVM JSON-RPC over HTTP and WS (`evm-rpc.ts`, listening in `evm-listeners.ts`) and its RPC reader threads (`rpc-readers.ts` on the main thread, `rpc-reader-thread.ts` in each worker), consensus RPC, metrics, REST, gRPC (`consensus-services.ts`)), the listeners' connection caps fitted under the descriptor limit (`descriptors.ts`), the adapters that implement rpc/'s interfaces (`adapters/`, named after what they adapt), the latest-only State Store of `ss-enable = false` (`latest-state-store.ts`: State Commit's state plus a short in-memory window), the clearing of what an unfinished state sync left before a node state syncs again (`state-sync-leftovers.ts`), the Prometheus registry each module records its metrics on (`chain|producer|mempool/metrics.ts`, see docs/metrics.md), the pino logger",
      mustNot: 'be imported by anything but `cli/`',
    },
  ],
  [
    {
      folder: 'cli',
      owns: 'commands: `init`, `start`, `dev`, `rollback` (configured as `start` is: `configuredNode`), `show-node-id`, `snapshots` (list, export, restore, delete), `testnet`, `version`; `tx staking|slashing …` and `keys show` (`tx/`: the operator key from a file, the staking and slashing messages as the SDK encodes them, SIGN_MODE_DIRECT signing, and one sender over the consensus RPC that broadcasts and waits for the block); one-line errors and exit codes',
      mustNot: 'hold logic a module should own',
    },
  ],
  [
    {
      folder: 'bin',
      owns: 'the process entry `chaind.ts`',
      mustNot: '',
    },
  ],
];

/** Extra prohibitions on top of the ordering. */
const FORBIDDEN: { from: string; to: RegExp; why: string }[] = [
  {
    from: 'rpc',
    to: /^src\/storage\//,
    why: 'rpc/ receives narrow read interfaces from node/, never storage',
  },
];
const PACKAGE_OWNERS: { pkg: RegExp; owner: string }[] = [
  { pkg: /^@ethereumjs\//, owner: 'execution' },
  // ethereumjs's KZG (point evaluation) and its trusted setup
  { pkg: /^micro-eth-signer(\/|$)/, owner: 'execution' },
  { pkg: /^@paulmillr\/trusted-setups(\/|$)/, owner: 'execution' },
];

const rankOf = new Map<string, number>();
LAYERS.forEach((group, rank) => group.forEach((layer) => rankOf.set(layer.folder, rank)));

/** The layer folder a file under src/ belongs to: the longest registered prefix. */
export function layerOf(srcRelative: string): string | undefined {
  const parts = srcRelative.split('/');
  for (let n = parts.length - 1; n > 0; n--) {
    const candidate = parts.slice(0, n).join('/');
    if (rankOf.has(candidate)) return candidate;
  }
  return undefined;
}

const IMPORT_RE =
  /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/g;

function* walk(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* walk(p);
    else if (p.endsWith('.ts')) yield p;
  }
}

export function checkLayers(root: string): string[] {
  const src = join(root, 'src');
  const problems: string[] = [];
  for (const file of walk(src)) {
    const rel = relative(src, file).split(sep).join('/');
    const from = layerOf(rel);
    if (!from) {
      problems.push(`src/${rel}: not inside a registered layer folder (see scripts/check-layers.ts)`);
      continue;
    }
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(IMPORT_RE)) {
      const spec = m[1] ?? m[2] ?? m[3];
      if (spec.startsWith('.')) {
        const target = relative(src, resolve(dirname(file), spec))
          .split(sep)
          .join('/');
        if (target.startsWith('..')) {
          problems.push(`src/${rel}: imports ${spec}, which is outside src/`);
          continue;
        }
        const to = layerOf(target);
        if (!to || to === from) continue;
        const forbidden = FORBIDDEN.find((f) => from.startsWith(f.from) && f.to.test(`src/${target}`));
        if (forbidden) problems.push(`src/${rel}: imports ${spec} — ${forbidden.why}`);
        else if (rankOf.get(to)! >= rankOf.get(from)!) {
          problems.push(
            `src/${rel}: layer ${from}/ must not import ${to}/ (${spec}); dependencies point down`,
          );
        }
      } else {
        const owner = PACKAGE_OWNERS.find((o) => o.pkg.test(spec));
        if (owner && !from.startsWith(owner.owner)) {
          problems.push(`src/${rel}: imports ${spec}; only ${owner.owner}/ may import it`);
        }
      }
    }
  }
  return problems;
}

/** Relative imports of a file (static imports and re-exports), resolved to paths under `src`. */
function staticImports(file: string, text: string, src: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(STATIC_IMPORT_RE)) {
    const spec = m[1] ?? m[2];
    if (!spec.startsWith('.')) continue;
    const target = relative(src, resolve(dirname(file), spec))
      .split(sep)
      .join('/');
    if (!target.startsWith('..')) out.push(target);
  }
  return out;
}

const STATIC_IMPORT_RE = /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s+['"]([^'"]+)['"]/g;

/**
 * Import cycles between files under src/, one per group of files that reach each other: the
 * shortest cycle through the group's first file, as paths from the root (`src/...`), the first file
 * repeated at the end.
 */
export function findImportCycles(root: string): string[][] {
  const src = join(root, 'src');
  const graph = new Map<string, string[]>();
  for (const file of walk(src)) {
    const rel = relative(src, file).split(sep).join('/');
    graph.set(rel, staticImports(file, readFileSync(file, 'utf8'), src));
  }
  const cycles: string[][] = [];
  for (const group of stronglyConnected(graph)) {
    const members = new Set(group);
    const first = [...group].sort()[0];
    const selfImport = graph.get(first)!.includes(first);
    if (group.length === 1 && !selfImport) continue;
    cycles.push(shortestCycle(first, graph, members).map((f) => `src/${f}`));
  }
  return cycles.sort((a, b) => (a[0] < b[0] ? -1 : 1));
}

export function checkImportCycles(root: string): string[] {
  return findImportCycles(root).map((cycle) => `import cycle: ${cycle.join(' → ')}`);
}

/** Tarjan's algorithm, iterative (the graph is the whole tree). */
function stronglyConnected(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; edge: number }[] = [{ node: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const top = work[work.length - 1];
      const edges = (graph.get(top.node) ?? []).filter((t) => graph.has(t));
      if (top.edge < edges.length) {
        const to = edges[top.edge++];
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) low.set(top.node, Math.min(low.get(top.node)!, index.get(to)!));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1].node;
        low.set(parent, Math.min(low.get(parent)!, low.get(top.node)!));
      }
      if (low.get(top.node) === index.get(top.node)) {
        const group: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          group.push(member);
        } while (member !== top.node);
        groups.push(group);
      }
    }
  }
  return groups;
}

/** Breadth-first from `first` back to itself, inside its group. */
function shortestCycle(first: string, graph: Map<string, string[]>, members: Set<string>): string[] {
  const previous = new Map<string, string>();
  const queue = [first];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i];
    for (const to of graph.get(node) ?? []) {
      if (!members.has(to)) continue;
      if (to === first) {
        const path = [node];
        while (path[0] !== first) path.unshift(previous.get(path[0])!);
        return [...path, first];
      }
      if (!previous.has(to) && to !== first) {
        previous.set(to, node);
        queue.push(to);
      }
    }
  }
  return [first, first];
}

const TABLE_BEGIN =
  '<!-- layer table: generated from LAYERS in scripts/check-layers.ts by `npm run docs` -->';
const TABLE_END = '<!-- end of layer table -->';

/** ARCHITECTURE.md's layer table, lowest layer first. */
export function layerTable(): string {
  const row = (d: LayerDoc): string =>
    `| \`${d.folder}/\` | ${d.owns} |${d.mustNot ? ` ${d.mustNot} |` : ' |'}`;
  const rows = ['| folder | owns | must not |', '| --- | --- | --- |'];
  for (const group of LAYERS)
    for (const layer of group) {
      rows.push(row(layer));
      for (const part of layer.parts ?? []) rows.push(row(part));
    }
  return rows.join('\n');
}

/** ARCHITECTURE.md with its layer table replaced by the generated one (undefined: no markers). */
function withGeneratedTable(text: string): string | undefined {
  const begin = text.indexOf(TABLE_BEGIN);
  const end = text.indexOf(TABLE_END);
  if (begin < 0 || end < begin) return undefined;
  return `${text.slice(0, begin + TABLE_BEGIN.length)}\n\n${layerTable()}\n\n${text.slice(end)}`;
}

/** A problem when the root's ARCHITECTURE.md exists and its layer table is not the generated one. */
export function checkArchitectureTable(root: string): string[] {
  const path = join(root, 'ARCHITECTURE.md');
  if (!existsSync(path)) return [];
  const text = readFileSync(path, 'utf8');
  const generated = withGeneratedTable(text);
  if (generated === undefined)
    return [`ARCHITECTURE.md: the layer table markers are missing (${TABLE_BEGIN} … ${TABLE_END})`];
  if (generated !== text)
    return [
      'ARCHITECTURE.md: its layer table differs from LAYERS in scripts/check-layers.ts; run `npm run docs`',
    ];
  return [];
}

if (import.meta.main) {
  const i = process.argv.indexOf('--root');
  const root = i > 0 ? resolve(process.argv[i + 1]) : process.cwd();
  if (process.argv.includes('--write-docs')) {
    const path = join(root, 'ARCHITECTURE.md');
    const generated = withGeneratedTable(readFileSync(path, 'utf8'));
    if (generated === undefined) {
      console.error(`ARCHITECTURE.md: the layer table markers are missing`);
      process.exit(1);
    }
    writeFileSync(path, generated);
    process.exit(0);
  }
  const problems = checkLayers(root);
  const cycles = checkImportCycles(root);
  const docs = checkArchitectureTable(root);
  for (const p of [...problems, ...cycles, ...docs]) console.error(p);
  if (problems.length > 0) console.error(`layer check: ${problems.length} violation(s)`);
  if (cycles.length > 0) console.error(`import cycles: ${cycles.length}`);
  if (problems.length + cycles.length + docs.length > 0) process.exit(1);
}
