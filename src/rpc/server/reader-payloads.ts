/**
 * How an RPC reader thread answers a POSTed payload: a request for one of the few methods it serves
 * from its own read-only view of the stores is answered there; everything else goes to the main
 * thread's dispatcher, which answers it exactly as it answers its own connections.
 *
 * A local answer is given only when it is the truth: the thread's view must hold the head the main
 * thread published (`ready`), and a local call that fails or finds nothing (an error, a null block)
 * is not answered from here but forwarded, so every error and every "not found" comes from the one
 * place that also knows the mempool, the pending block and the newest commit. A batch is answered
 * here only when all its requests are local ones that succeed; otherwise the whole batch is
 * forwarded, so it keeps its order, its ids and the batch-wide response bound without a second
 * implementation of them.
 *
 * Per-method metrics of local answers are recorded here (the local dispatcher has no registry), so a
 * forwarded request is counted once, by the main thread's dispatcher.
 */
import type { CallContext, Dispatcher, JsonRpcResponse } from './dispatcher.ts';
import type { PayloadHandler } from './http.ts';
import type { RpcMetrics } from './metrics.ts';
import { BoundedJson } from './serialize.ts';

/** The main thread's answer to a forwarded payload. */
export interface ForwardedAnswer {
  json: string | undefined;
  headers?: Readonly<Record<string, string>>;
}

export interface ReaderPayloadOptions {
  /** A dispatcher over the local methods only, without a metrics registry. */
  local: Dispatcher;
  localMethods: ReadonlySet<string>;
  /** Whether local answers may be given now (the thread's view holds the published head). */
  ready(): boolean;
  forward(payload: unknown): Promise<ForwardedAnswer>;
  /** Called for each payload answered here. */
  onLocal?(): void;
  metrics?: RpcMetrics;
  maxResponseBytes?: number;
}

export class ReaderPayloads implements PayloadHandler {
  private readonly o: ReaderPayloadOptions;

  constructor(o: ReaderPayloadOptions) {
    this.o = o;
  }

  async handlePayloadText(
    payload: unknown,
    batchLimit: number,
    ctx?: CallContext,
  ): Promise<string | undefined> {
    const requests = this.localRequests(payload, batchLimit);
    if (!requests || !this.o.ready()) return this.forward(payload, ctx);
    const max = this.o.maxResponseBytes ?? Infinity;
    const answers: { r: JsonRpcResponse; method: string; seconds: number }[] = [];
    for (const m of requests) {
      const t0 = performance.now();
      const r = await this.o.local.handle(m);
      if (!r || r.error || r.result === null) return this.forward(payload, ctx);
      answers.push({ r, method: m.method, seconds: (performance.now() - t0) / 1000 });
    }
    const texts: string[] = [];
    let used = 2;
    for (const { r } of answers) {
      const text = await BoundedJson.stringify(r, max - used);
      // over the bound: the main thread words the refusal
      if (text === undefined) return this.forward(payload, ctx);
      used += text.length + 1;
      texts.push(text);
    }
    if (this.o.metrics) for (const a of answers) this.o.metrics.record(a.method, undefined, a.seconds);
    this.o.onLocal?.();
    return Array.isArray(payload) ? '[' + texts.join(',') + ']' : texts[0];
  }

  private async forward(payload: unknown, ctx: CallContext | undefined): Promise<string | undefined> {
    const { json, headers } = await this.o.forward(payload);
    if (headers && ctx) ctx.headers = headers;
    return json;
  }

  /** The payload's requests when every one of them may be tried here; else undefined. */
  private localRequests(payload: unknown, batchLimit: number): { method: string }[] | undefined {
    if (!Array.isArray(payload)) return this.isLocal(payload) ? [payload] : undefined;
    if (payload.length === 0 || payload.length > batchLimit) return undefined;
    for (const m of payload) if (!this.isLocal(m)) return undefined;
    return payload as { method: string }[];
  }

  /** A well-formed request (not a notification) for a local method. */
  private isLocal(m: unknown): m is { method: string } {
    if (m === null || typeof m !== 'object' || Array.isArray(m)) return false;
    const r = m as Record<string, unknown>;
    if (!('id' in r) || r.jsonrpc !== '2.0' || typeof r.method !== 'string') return false;
    if (r.params !== undefined && r.params !== null && !Array.isArray(r.params)) return false;
    return this.o.localMethods.has(r.method);
  }
}
