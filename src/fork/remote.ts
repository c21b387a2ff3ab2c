/**
 * JSON-RPC calls to the remote chain of a fork, answered synchronously. State reads are synchronous
 * all the way down (the overlay, the app modules, the EVM's state manager), and a forked value is
 * only known to be needed when one of them reads it, so the read blocks: the HTTP request runs on a
 * thread of its own (remote-thread.ts) while this thread waits on shared memory with a deadline, then
 * takes the answer off the port without turning the event loop. Blocking the whole node for a round
 * trip is acceptable on a dev chain, and each value is fetched once (cache.ts).
 */
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { ChainError } from '../util/errors.ts';
import type { RemoteAnswer, RemoteRequest, RemoteThreadData } from './remote-thread.ts';

export interface RpcCall {
  method: string;
  params: unknown[];
}

/** A remote that does not answer within this long fails the read that needed it. */
export const DEFAULT_REMOTE_TIMEOUT_MS = 30_000;
/**
 * After a failed request, reads fail at once for this long: the producer retries a failed block at
 * once, and each retry against a remote that hangs would block the node for a whole timeout.
 */
export const RETRY_AFTER_MS = 2_000;

export class ForkRemoteError extends ChainError {
  readonly why: string;
  constructor(url: string, what: string, why: string) {
    super('FORK_REMOTE_FAILED', `the fork's remote ${url} failed ${what}: ${why}`);
    this.why = why;
  }
}

export class ForkRemote {
  readonly url: string;
  private readonly timeoutMs: number;
  private worker: Worker | undefined;
  private port: MessagePort | undefined;
  private readonly done = new Int32Array(new SharedArrayBuffer(4));
  private nextId = 1;
  /** Calls made (each batch counts once): what tests and logs read to see the cache work. */
  requests = 0;
  private failure: { at: number; why: string } | undefined;

  constructor(url: string, timeoutMs = DEFAULT_REMOTE_TIMEOUT_MS) {
    this.url = url;
    this.timeoutMs = timeoutMs;
  }

  /** The calls' results, in order, as one JSON-RPC batch; throws ForkRemoteError naming the remote. */
  batchSync(calls: RpcCall[], what: string): unknown[] {
    const ids = calls.map(() => this.nextId++);
    const body = JSON.stringify(
      calls.map((c, i) => ({ jsonrpc: '2.0', id: ids[i], method: c.method, params: c.params })),
    );
    const text = this.postSync(body, what);
    let answers: { id: number; result?: unknown; error?: { message?: string } }[];
    try {
      answers = JSON.parse(text);
    } catch {
      throw new ForkRemoteError(this.url, what, `the answer is not JSON: ${text.slice(0, 200)}`);
    }
    if (!Array.isArray(answers))
      throw new ForkRemoteError(this.url, what, `a batch was answered with ${text.slice(0, 200)}`);
    return ids.map((id, i) => {
      const a = answers.find((x) => x && x.id === id);
      if (!a) throw new ForkRemoteError(this.url, what, `no answer to ${calls[i].method}`);
      if (a.error) throw new ForkRemoteError(this.url, what, `${calls[i].method}: ${a.error.message}`);
      return a.result;
    });
  }

  private postSync(body: string, what: string): string {
    const failed = this.failure;
    if (failed && Date.now() - failed.at < RETRY_AFTER_MS)
      throw new ForkRemoteError(this.url, what, `${failed.why} (not asked again for ${RETRY_AFTER_MS} ms)`);
    try {
      const answer = this.post(body, what);
      this.failure = undefined;
      return answer;
    } catch (err) {
      if (err instanceof ForkRemoteError) this.failure = { at: Date.now(), why: err.why };
      throw err;
    }
  }

  private post(body: string, what: string): string {
    const { port, done } = this.thread();
    const id = this.nextId++;
    this.requests++;
    const req: RemoteRequest = { id, url: this.url, body, timeoutMs: this.timeoutMs };
    port.postMessage(req);
    // the thread's own fetch deadline answers first; this one covers a thread that cannot answer
    const deadline = Date.now() + this.timeoutMs + 5_000;
    for (;;) {
      const seen = Atomics.load(done, 0);
      if (seen === id) break;
      const left = deadline - Date.now();
      if (left <= 0) throw new ForkRemoteError(this.url, what, `no answer within ${this.timeoutMs} ms`);
      Atomics.wait(done, 0, seen, left);
    }
    // answers to requests given up on earlier come first: skip them
    for (;;) {
      const m = receiveMessageOnPort(port)?.message as RemoteAnswer | undefined;
      if (!m) throw new ForkRemoteError(this.url, what, 'the request thread lost its answer');
      if (m.id !== id) continue;
      if (!m.ok) throw new ForkRemoteError(this.url, what, m.error);
      return m.body;
    }
  }

  private thread(): { port: MessagePort; done: Int32Array } {
    if (!this.worker || !this.port) {
      const { port1, port2 } = new MessageChannel();
      const data: RemoteThreadData = { port: port2, done: this.done };
      this.worker = new Worker(new URL('./remote-thread.ts', import.meta.url), {
        workerData: data,
        transferList: [port2],
      });
      // a node that stops does not wait for this thread: it holds nothing to flush
      this.worker.unref();
      port1.unref();
      this.port = port1;
    }
    return { port: this.port, done: this.done };
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    this.port?.close();
    this.port = undefined;
    if (w) await w.terminate();
  }
}

/** One JSON-RPC call over plain fetch, for what a fork resolves before the node starts. */
export async function remoteCall(
  url: string,
  method: string,
  params: unknown[],
  timeoutMs = DEFAULT_REMOTE_TIMEOUT_MS,
): Promise<unknown> {
  let text: string;
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    text = await res.text();
    if (!res.ok) throw new Error(`HTTP ${res.status}: ${text.slice(0, 200)}`);
  } catch (err) {
    const e = err as Error & { cause?: Error };
    const why = e.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : e.message;
    throw new ForkRemoteError(
      url,
      `to answer ${method}`,
      e.cause?.message ? `${why} (${e.cause.message})` : why,
    );
  }
  let a: { result?: unknown; error?: { message?: string } };
  try {
    a = JSON.parse(text);
  } catch {
    throw new ForkRemoteError(url, `to answer ${method}`, `the answer is not JSON: ${text.slice(0, 200)}`);
  }
  if (a.error) throw new ForkRemoteError(url, `to answer ${method}`, String(a.error.message));
  return a.result;
}
