/**
 * The thread that talks HTTP to the remote chain of a fork (remote.ts): the main thread's state reads
 * are synchronous, so it posts a request here and blocks until this thread has the answer.
 */
import { type MessagePort, workerData } from 'node:worker_threads';

export interface RemoteThreadData {
  port: MessagePort;
  /** [0]: the id of the last request answered; the main thread waits on it. */
  done: Int32Array;
}

export interface RemoteRequest {
  id: number;
  url: string;
  body: string;
  timeoutMs: number;
}

export type RemoteAnswer = { id: number; ok: true; body: string } | { id: number; ok: false; error: string };

const { port, done } = workerData as RemoteThreadData;

port.on('message', (req: RemoteRequest) => {
  void answer(req).then((a) => {
    port.postMessage(a);
    Atomics.store(done, 0, req.id);
    Atomics.notify(done, 0);
  });
});

async function answer(req: RemoteRequest): Promise<RemoteAnswer> {
  try {
    const res = await fetch(req.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: req.body,
      signal: AbortSignal.timeout(req.timeoutMs),
    });
    const body = await res.text();
    if (!res.ok) return { id: req.id, ok: false, error: `HTTP ${res.status}: ${body.slice(0, 200)}` };
    return { id: req.id, ok: true, body };
  } catch (err) {
    const e = err as Error & { cause?: Error };
    const why = e.name === 'TimeoutError' ? `no answer within ${req.timeoutMs} ms` : e.message;
    return { id: req.id, ok: false, error: e.cause?.message ? `${why} (${e.cause.message})` : why };
  }
}
