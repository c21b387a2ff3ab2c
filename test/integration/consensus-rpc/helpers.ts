/**
 * An in-process node with the consensus RPC and metrics on free ports, and small HTTP helpers.
 * The node starts the operational services itself; their bound addresses come from its handles.
 */
import type { ChainNode } from '../../../src/node/node.ts';
import { type LogRecord, memoryLogger } from '../../../src/util/logger.ts';
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
