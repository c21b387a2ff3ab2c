/** Small clients for the chaos harness: every call has a deadline, since a paused node never answers. */

export interface JsonRpcAnswer {
  result?: any;
  error?: { code: number; message: string };
}

/** One JSON-RPC call; throws on transport failure or timeout (the node is down, paused or cut off). */
export async function jsonRpc(
  url: string,
  method: string,
  params: unknown[] | Record<string, unknown> = [],
  ms = 5_000,
): Promise<JsonRpcAnswer> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(ms),
  });
  return (await res.json()) as JsonRpcAnswer;
}

/** A call's result; throws naming the method on an error answer. */
export async function result(url: string, method: string, params: unknown[] = [], ms = 5_000): Promise<any> {
  const a = await jsonRpc(url, method, params, ms);
  if (a.error) throw new Error(`${method}: ${a.error.code} ${a.error.message}`);
  return a.result;
}

/** GET with a deadline: status and body text. */
export async function get(url: string, ms = 5_000): Promise<{ status: number; text: string }> {
  const res = await fetch(url, { signal: AbortSignal.timeout(ms) });
  return { status: res.status, text: await res.text() };
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export const hex = (n: number | bigint) => '0x' + n.toString(16);
