/** Plain JSON-RPC calls over HTTP, each answer's envelope checked. */
import assert from 'node:assert/strict';

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
