/** An in-process node with its JSON-RPC server on a free port, and plain-HTTP JSON-RPC calls. */
import assert from 'node:assert/strict';
import { Wallet, type TransactionRequest } from 'ethers';
import type { ChainNode } from '../../../src/node/node.ts';
import { DEV_ACCOUNTS, makeHome, startNode } from '../../helpers/node.ts';

export const CHAIN_ID = 713714n;
export const GWEI = 10n ** 9n;
export const wallets = DEV_ACCOUNTS.map((a) => new Wallet('0x' + Buffer.from(a.privateKey).toString('hex')));

export interface RpcNode {
  node: ChainNode;
  url: string;
}

export async function rpcNode(
  t: { after(fn: () => unknown): void },
  flags: Record<string, string> = {},
): Promise<RpcNode> {
  const home = makeHome(t);
  const node = await startNode(home, { 'evm.http_port': '0', ...flags });
  t.after(() => node.stop());
  return { node, url: node.modules.evmHttp!.url };
}

export interface RpcAnswer {
  jsonrpc: string;
  id: unknown;
  result?: any;
  error?: { code: number; message: string; data?: unknown };
}

let nextId = 1;

/** One JSON-RPC call; returns the whole response object. */
export async function rpc(url: string, method: string, params: unknown[] = []): Promise<RpcAnswer> {
  const id = nextId++;
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  });
  assert.equal(res.status, 200);
  const body = (await res.json()) as RpcAnswer;
  assert.equal(body.jsonrpc, '2.0');
  assert.equal(body.id, id);
  return body;
}

/** The result of a call that must succeed. */
export async function result(url: string, method: string, params: unknown[] = []): Promise<any> {
  const r = await rpc(url, method, params);
  assert.equal(r.error, undefined, `${method} failed: ${JSON.stringify(r.error)}`);
  return r.result;
}

/** The error of a call that must fail. */
export async function error(url: string, method: string, params: unknown[] = []) {
  const r = await rpc(url, method, params);
  assert.ok(r.error, `${method} should fail, got ${JSON.stringify(r.result)}`);
  assert.equal('result' in r, false);
  return r.error;
}

/** Raw HTTP: status, headers and body text. */
export async function http(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | Buffer; path?: string } = {},
) {
  const res = await fetch(url + (init.path ?? '/'), {
    method: init.method ?? 'POST',
    headers: init.headers ?? { 'content-type': 'application/json' },
    body: init.body,
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** Signs with a dev wallet (chain id filled in), sends over RPC, waits for the receipt over RPC. */
export async function sendAndWait(url: string, wallet: Wallet, tx: TransactionRequest) {
  const raw = await wallet.signTransaction({ chainId: CHAIN_ID, ...tx });
  const hash = await result(url, 'eth_sendRawTransaction', [raw]);
  const receipt = await waitReceipt(url, hash);
  return { hash: hash as string, raw, receipt };
}

/** Polls eth_getTransactionReceipt until the tx is mined (the receipt appears under the watermark). */
export async function waitReceipt(url: string, hash: string, ms = 15_000): Promise<any> {
  const deadline = Date.now() + ms;
  for (;;) {
    const receipt = await result(url, 'eth_getTransactionReceipt', [hash]);
    if (receipt) return receipt;
    if (Date.now() > deadline) throw new Error(`tx ${hash} not mined within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const hex = (n: bigint | number) => '0x' + n.toString(16);
