/** An in-process node with its JSON-RPC server on a free port, and plain-HTTP JSON-RPC calls. */
import assert from 'node:assert/strict';
import { Wallet, type TransactionRequest } from 'ethers';
import type { ChainNode } from '../../../src/node/node.ts';
import { result } from '../../helpers/json-rpc.ts';
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

export { error, result, rpc, type RpcAnswer } from '../../helpers/json-rpc.ts';

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
