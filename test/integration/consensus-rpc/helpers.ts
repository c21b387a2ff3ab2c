/**
 * An in-process node with the consensus RPC and metrics on free ports, and small HTTP helpers.
 * The node starts the operational services itself; their bound addresses come from its handles.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseGenesis } from '../../../src/app/genesis.ts';
import type { SyncStatus } from '../../../src/chain/sync-status.ts';
import { consensusRpcDeps } from '../../../src/node/adapters/consensus-rpc.ts';
import type { ChainNode } from '../../../src/node/node.ts';
import { ConsensusRpcServer } from '../../../src/rpc/consensus/server.ts';
import type { ConsensusRpcDeps } from '../../../src/rpc/consensus/types.ts';
import { type LogRecord, memoryLogger, silentLogger } from '../../../src/util/logger.ts';
import { makeHome, startNode, until } from '../../helpers/node.ts';

export interface RpcNode {
  node: ChainNode;
  home: string;
  /** http://127.0.0.1:<port> of the consensus RPC */
  rpc: string;
  /** http://127.0.0.1:<port>/metrics ('' with prometheus = false) */
  metrics: string;
  logs: LogRecord[];
}

export async function startRpcNode(
  t: { after(fn: () => unknown): void },
  flags: Record<string, string> = {},
): Promise<RpcNode> {
  const home = makeHome(t);
  const logs: LogRecord[] = [];
  const node = await startNode(home, flags, memoryLogger(logs));
  t.after(() => node.stop());
  const h = node.modules;
  return {
    node,
    home,
    rpc: `http://127.0.0.1:${h.consensusRpc!.address.port}`,
    metrics: h.metrics ? `http://127.0.0.1:${h.metrics.address.port}/metrics` : '',
    logs,
  };
}

/** Resolves once the chain has committed at least `height` blocks. */
export function atHeight(node: ChainNode, height: number): Promise<number> {
  return until(() =>
    node.modules.chain.latestHeight >= height ? node.modules.chain.latestHeight : undefined,
  );
}

export interface HttpAnswer {
  status: number;
  body: any;
}

/** GET `/<route>?query` */
export async function get(base: string, pathAndQuery: string): Promise<HttpAnswer> {
  const res = await fetch(base + pathAndQuery);
  return { status: res.status, body: await res.json() };
}

/** POST a JSON-RPC request to `/`. */
export async function post(
  base: string,
  method: string,
  params: unknown = {},
  id: unknown = 1,
): Promise<HttpAnswer> {
  const res = await fetch(base + '/', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  });
  return { status: res.status, body: await res.json() };
}

/**
 * A second consensus RPC over `n`'s real adapters, with some of its dependencies replaced (a
 * network view with peers, an upstream engine, a sync status): what a test cannot make the node
 * itself report. Its base URL; stopped after the test.
 */
export async function consensusRpcOver(
  t: { after(fn: () => unknown): void },
  n: Pick<RpcNode, 'node' | 'home'>,
  o: { sync?: () => SyncStatus; replace?: Partial<ConsensusRpcDeps>; lagThreshold?: number } = {},
): Promise<string> {
  const { node, home } = n;
  const deps = {
    ...consensusRpcDeps({
      home,
      dataDir: node.dataDir,
      genesis: parseGenesis(readFileSync(join(home, 'config', 'genesis.json'), 'utf8')),
      moniker: 'it',
      appVersion: '0.0.0',
      chain: node.modules.chain,
      blocks: node.modules.blocks,
      mempool: node.modules.mempool,
      cosmosPool: node.modules.cosmosPool,
      submission: node.modules.submission,
      logger: silentLogger,
      sync: o.sync ?? (() => node.syncStatus()),
    }),
    ...o.replace,
  };
  const server = new ConsensusRpcServer(deps, {
    host: '127.0.0.1',
    port: 0,
    maxBodyBytes: 1_000_000,
    corsAllowedOrigins: [],
    lagThreshold: o.lagThreshold ?? 10,
    logger: silentLogger,
  });
  await server.start();
  t.after(() => server.stop());
  return `http://127.0.0.1:${server.address.port}`;
}
