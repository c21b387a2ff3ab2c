/**
 * The one JSON-RPC dispatcher: envelope checks, method lookup (and the deny list), parameter
 * decoding through the method's codecs before any handler runs, and error mapping. Transports
 * (HTTP now, WebSocket later) hand it parsed JSON and write back what it returns.
 *
 * Parameter problems are -32602 with geth's wording and the argument index:
 *   "missing value for required argument 1", "too many arguments, want at most 2",
 *   "invalid argument 0: hex string without 0x prefix".
 */
import type { Registry } from 'prom-client';
import type { ParamCodec } from '../codecs/params.ts';
import { CodecError } from '../codecs/errors.ts';
import {
  InvalidParamsError,
  InvalidRequestError,
  type JsonRpcError,
  LimitExceededError,
  MethodNotFoundError,
  type RpcError,
  toJsonRpcError,
} from './errors.ts';
import { RpcMetrics } from './metrics.ts';
import { BoundedJson } from './serialize.ts';
import { blockWork } from '../../util/block-first.ts';
import { Semaphore } from '../../util/semaphore.ts';

/** Heavy methods bounded elsewhere (the trace slots), which also wait for a block in progress. */
const HEAVY_UNLIMITED = /^(debug_trace|trace_|ots_)/;

type Decoded<P extends readonly ParamCodec<unknown>[]> = {
  [K in keyof P]: P[K] extends ParamCodec<infer T> ? T : never;
};

export interface MethodDef {
  readonly params: readonly ParamCodec<unknown>[];
  readonly handler: (...args: any[]) => unknown;
}

export type MethodTable = Readonly<Record<string, MethodDef>>;

/**
 * A family of method names served only when allowed (the deprecated chain_/chain2_ surface): a
 * covered name is checked before the method table, so a blocked name never reaches a handler.
 */
export interface MethodGate {
  /** Cheap prefix test; everything it rejects pays nothing more. */
  covers(name: string): boolean;
  /** Why a covered name is refused, or undefined when it may be served. */
  refusal(name: string): RpcError | undefined;
  /** HTTP response headers of a request that ran a covered method (whatever its outcome). */
  readonly servedHeaders?: Readonly<Record<string, string>>;
}

/** Per-request facts a transport reads after dispatch. */
export interface CallContext {
  /** Headers the HTTP answer must carry (a gate's `servedHeaders`). */
  headers?: Readonly<Record<string, string>>;
}

/** Declares a method; the handler's argument types follow from the codecs. */
export function method<const P extends readonly ParamCodec<any>[]>(
  params: P,
  handler: (...args: Decoded<P>) => unknown,
): MethodDef {
  return { params, handler: handler as MethodDef['handler'] };
}

export type JsonRpcId = string | number | null;

export interface JsonRpcResponse {
  jsonrpc: '2.0';
  id: JsonRpcId;
  result?: unknown;
  error?: JsonRpcError;
}

export interface DispatcherOptions {
  /** Methods refused as if they did not exist (`[evm] deny_list`). */
  denyList?: readonly string[];
  /**
   * Namespaces refused whole, by the part of a method name before its first `_` (`[evm]
   * disabled_namespaces`): their methods answer -32601 naming the key, rpc_modules leaves them out.
   */
  disabledNamespaces?: readonly string[];
  /**
   * The namespaces one transport serves (`[evm] http_api`, `[evm] ws_api`; "*" in `names`: all),
   * besides `rpc`, always served: another's methods answer -32601 naming `key`, rpc_modules leaves
   * them out.
   */
  servedNamespaces?: { names: readonly string[]; key: string; transport: string };
  /** Called with unexpected (non-ChainError) failures, which answer -32603. */
  onInternalError?: (err: unknown, method: string) => void;
  /** Per-method request counts and latencies are recorded here (the node's /metrics registry). */
  registry?: Registry;
  /** Names this gate covers are refused unless it allows them. */
  gate?: MethodGate;
  /**
   * Why a name this node does not serve is not served, when it is one a client may expect elsewhere
   * (a dev chain's method on a network node): the -32601 answer says so.
   */
  whyNotServed?: (name: string) => string | undefined;
  /**
   * Most bytes of JSON one answer may take, a batch's answers together (`[evm] max_response_bytes`;
   * absent: no bound).
   */
  maxResponseBytes?: number;
  /**
   * Kinds of heavy methods that run at most `max` at once each (log queries, simulations): the
   * next wait their turn, and past `maxWaiting` waiting ones a call is refused (-32005 naming `key`),
   * so heavy work cannot crowd out cheap calls or pile up memory.
   */
  concurrency?: readonly ConcurrencyLimit[];
}

export interface ConcurrencyLimit {
  methods: readonly string[];
  max: number;
  maxWaiting: number;
  /** the config key that sets `max`, named in the refusal */
  key: string;
}

/** geth's code and words for an answer over its batch response size. */
export const RESPONSE_TOO_LARGE = -32003;

export class Dispatcher {
  private readonly methods: Map<string, MethodDef>;
  private readonly denied: Set<string>;
  private readonly disabled: Set<string>;
  /** Namespaces this transport serves; undefined: all. */
  private readonly served: Set<string> | undefined;
  private readonly onInternalError: (err: unknown, method: string) => void;
  private readonly options: DispatcherOptions;
  private readonly metrics: RpcMetrics | undefined;
  private readonly gate: MethodGate | undefined;
  /** Per limited method: its kind's semaphore (shared by every dispatcher `extend` makes). */
  private readonly limited: Map<string, { sem: Semaphore; key: string }>;

  constructor(
    methods: MethodTable,
    options: DispatcherOptions = {},
    metrics?: RpcMetrics,
    limited?: Map<string, { sem: Semaphore; key: string }>,
  ) {
    this.methods = new Map(Object.entries(methods));
    // geth's server answers rpc_modules itself, from the services it holds; so does this one, from
    // its own table, so the answer cannot drift from what is served (every dispatcher `extend` makes
    // answers for its own table and gate)
    this.methods.set(
      'rpc_modules',
      method([], () => this.modules()),
    );
    this.denied = new Set(options.denyList ?? []);
    this.disabled = new Set(options.disabledNamespaces ?? []);
    const names = options.servedNamespaces?.names;
    this.served = names && !names.includes('*') ? new Set([...names, 'rpc']) : undefined;
    this.onInternalError = options.onInternalError ?? (() => {});
    this.options = options;
    this.gate = options.gate;
    this.metrics = metrics ?? (options.registry ? new RpcMetrics(options.registry) : undefined);
    this.limited = limited ?? new Map();
    if (!limited) {
      for (const c of options.concurrency ?? []) {
        const entry = { sem: new Semaphore(c.max, c.maxWaiting), key: c.key };
        for (const m of c.methods) this.limited.set(m, entry);
      }
    }
  }

  /**
   * The same dispatcher with more methods (a WebSocket connection's eth_subscribe), sharing the deny
   * list and the metrics; `options` replaces individual options (the HTTP transport's legacy gate).
   */
  extend(methods: MethodTable, options: Partial<DispatcherOptions> = {}): Dispatcher {
    return new Dispatcher(
      { ...Object.fromEntries(this.methods), ...methods },
      { ...this.options, ...options },
      this.metrics,
      this.limited,
    );
  }

  /** Names of the methods served (deny-listed ones and disabled namespaces excluded). */
  get methodNames(): string[] {
    return [...this.methods.keys()]
      .filter((m) => !this.denied.has(m) && !this.isDisabled(m) && this.isServed(m))
      .sort();
  }

  /** Whether this transport serves `name`'s namespace (a name without one counts as served). */
  private isServed(name: string): boolean {
    if (this.served === undefined) return true;
    const cut = name.indexOf('_');
    return cut <= 0 || this.served.has(name.slice(0, cut));
  }

  private isDisabled(name: string): boolean {
    if (this.disabled.size === 0) return false;
    const cut = name.indexOf('_');
    return cut > 0 && this.disabled.has(name.slice(0, cut));
  }

  /**
   * geth's `rpc_modules`: each namespace (the part of a name before its first `_`) with a method this
   * dispatcher would run, at geth's version string "1.0"; names deny-listed or refused by the gate
   * do not count.
   */
  modules(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const name of this.methodNames) {
      if (this.gate?.covers(name) && this.gate.refusal(name)) continue;
      const cut = name.indexOf('_');
      if (cut > 0) out[name.slice(0, cut)] = '1.0';
    }
    return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
  }

  /** Decodes `params` and runs the method; throws ChainErrors the caller maps. */
  async call(name: string, params: unknown[], ctx?: CallContext): Promise<unknown> {
    if (this.gate?.covers(name)) {
      const refusal = this.gate.refusal(name);
      if (refusal) throw refusal;
      if (ctx && this.gate.servedHeaders && this.methods.has(name) && !this.denied.has(name))
        ctx.headers = this.gate.servedHeaders;
    }
    const def = this.methods.get(name);
    if (!def)
      throw new MethodNotFoundError(
        this.options.whyNotServed?.(name) ?? `the method ${name} does not exist/is not available`,
      );
    if (this.denied.has(name))
      throw new MethodNotFoundError(`the method ${name} is not available: it is in this node's deny_list`);
    if (this.isDisabled(name))
      throw new MethodNotFoundError(
        `the method ${name} is not available: the ${name.slice(0, name.indexOf('_'))} namespace is ` +
          'disabled on this node ([evm] disabled_namespaces)',
      );
    if (!this.isServed(name)) {
      const ns = this.options.servedNamespaces!;
      throw new MethodNotFoundError(
        `the method ${name} is not available: the ${name.slice(0, name.indexOf('_'))} namespace is not ` +
          `served over ${ns.transport} on this node (${ns.key})`,
      );
    }
    const args = decodeParams(def.params, params);
    const limit = this.limited.get(name);
    // a heavy call starts after the block in progress, if any (util/block-first.ts)
    if (limit || HEAVY_UNLIMITED.test(name)) await blockWork.wait();
    if (!limit) return def.handler(...args);
    const acquired = limit.sem.acquire();
    if (!acquired) {
      throw new LimitExceededError(
        `busy: ${limit.sem.running} calls like ${name} are running and ${limit.sem.queued} waiting, ` +
          `the most this node serves at once (${limit.key} = ${limit.sem.max}); try again later`,
      );
    }
    const release = await acquired;
    try {
      return await def.handler(...args);
    } finally {
      release();
    }
  }

  /**
   * One request object: the response, or undefined for a notification (no `id` member). Never
   * throws: every failure becomes an error response.
   */
  async handle(message: unknown, ctx?: CallContext): Promise<JsonRpcResponse | undefined> {
    const notification =
      message !== null && typeof message === 'object' && !Array.isArray(message) && !('id' in message);
    const t0 = this.metrics ? performance.now() : 0;
    // A notification is run (and its outcome counted) like a request; only the answer is dropped.
    const response = await this.answer(message, ctx);
    if (this.metrics) {
      const name = (message as { method?: unknown } | null)?.method;
      const served = typeof name === 'string' && this.methods.has(name) && !this.denied.has(name);
      this.metrics.record(served ? name : 'unknown', response.error?.code, (performance.now() - t0) / 1000);
    }
    return notification ? undefined : response;
  }

  private async answer(message: unknown, ctx: CallContext | undefined): Promise<JsonRpcResponse> {
    if (message === null || typeof message !== 'object' || Array.isArray(message)) {
      return errorResponse(null, invalidRequest('not a JSON-RPC request object'));
    }
    const m = message as Record<string, unknown>;
    const hasId = 'id' in m;
    const id = m.id;
    if (hasId && !(id === null || typeof id === 'string' || typeof id === 'number')) {
      return errorResponse(null, invalidRequest('id must be a string, a number or null'));
    }
    const rid = (hasId ? id : null) as JsonRpcId;
    const name = typeof m.method === 'string' ? m.method : '';
    let result: unknown;
    try {
      if (m.jsonrpc !== '2.0') throw new InvalidRequestError('jsonrpc must be "2.0"');
      if (typeof m.method !== 'string' || m.method === '')
        throw new InvalidRequestError('method must be a non-empty string');
      let params: unknown[];
      if (m.params === undefined || m.params === null) params = [];
      else if (Array.isArray(m.params)) params = m.params;
      else throw new InvalidParamsError('non-array args: params must be an array of positional arguments');
      result = await this.call(name, params, ctx);
    } catch (err) {
      return errorResponse(
        rid,
        toJsonRpcError(err, (e) => this.onInternalError(e, name)),
      );
    }
    return { jsonrpc: '2.0', id: rid, result: result === undefined ? null : result };
  }

  /**
   * The JSON text of `handlePayload`'s answer, each answer serialised once, within
   * `maxResponseBytes`: a single answer over it is replaced by a -32003 error naming the key; in a
   * batch (as geth's BatchResponseMaxSize) the answer that passes it and every later request get
   * that error instead, and the later requests are not run.
   */
  async handlePayloadText(
    payload: unknown,
    batchLimit: number,
    ctx?: CallContext,
  ): Promise<string | undefined> {
    const max = this.options.maxResponseBytes ?? Infinity;
    if (!Array.isArray(payload) || payload.length === 0 || payload.length > batchLimit) {
      const r = await this.handlePayload(payload, batchLimit, ctx);
      if (r === undefined) return undefined;
      const text = await BoundedJson.stringify(r, max);
      if (text !== undefined) return text;
      return JSON.stringify(tooLarge((r as JsonRpcResponse).id, max, 'the answer exceeds'));
    }
    const parts: string[] = [];
    let used = 2;
    let over = false;
    for (const m of payload) {
      if (over) {
        const id = requestId(m);
        if (id !== undefined) parts.push(JSON.stringify(tooLarge(id, max, "the batch's answers exceed")));
        continue;
      }
      const r = await this.handle(m, ctx);
      if (!r) continue;
      const text = await BoundedJson.stringify(r, max - used);
      if (text === undefined) {
        over = true;
        parts.push(JSON.stringify(tooLarge(r.id, max, "the batch's answers exceed")));
        continue;
      }
      used += text.length + 1;
      parts.push(text);
    }
    return parts.length > 0 ? '[' + parts.join(',') + ']' : undefined;
  }

  /**
   * A parsed body: one request or a batch. Batch requests run one after another (as in geth, so a
   * batch that sends a tx and then looks it up sees it) and are answered in order; notifications get
   * no answer, and a batch of only notifications gets nothing at all. An empty batch, or one over
   * `batchLimit`, is a single -32600 error.
   */
  async handlePayload(
    payload: unknown,
    batchLimit: number,
    ctx?: CallContext,
  ): Promise<JsonRpcResponse | JsonRpcResponse[] | undefined> {
    if (!Array.isArray(payload)) return this.handle(payload, ctx);
    if (payload.length === 0) return errorResponse(null, { code: -32600, message: 'empty batch' });
    if (payload.length > batchLimit) {
      return errorResponse(null, {
        code: -32600,
        message: `batch too large: ${payload.length} requests, batch_request_limit is ${batchLimit}`,
      });
    }
    const out: JsonRpcResponse[] = [];
    for (const m of payload) {
      const r = await this.handle(m, ctx);
      if (r) out.push(r);
    }
    return out.length > 0 ? out : undefined;
  }
}

function tooLarge(id: JsonRpcId, max: number, what: string): JsonRpcResponse {
  return errorResponse(id, {
    code: RESPONSE_TOO_LARGE,
    message: `response too large: ${what} max_response_bytes = ${max} bytes ([evm] max_response_bytes)`,
  });
}

/** The id a request not run would be answered with; undefined for a notification (no answer). */
function requestId(m: unknown): JsonRpcId | undefined {
  if (m === null || typeof m !== 'object' || Array.isArray(m)) return null;
  if (!('id' in m)) return undefined;
  const id = (m as { id: unknown }).id;
  return id === null || typeof id === 'string' || typeof id === 'number' ? id : null;
}

function invalidRequest(reason: string): JsonRpcError {
  return toJsonRpcError(new InvalidRequestError(reason), () => {});
}

function errorResponse(id: JsonRpcId, error: JsonRpcError): JsonRpcResponse {
  return { jsonrpc: '2.0', id, error };
}

function decodeParams(codecs: readonly ParamCodec<unknown>[], args: unknown[]): unknown[] {
  if (args.length > codecs.length) {
    throw new InvalidParamsError(`too many arguments, want at most ${codecs.length}`);
  }
  const out: unknown[] = [];
  for (let i = 0; i < codecs.length; i++) {
    const c = codecs[i];
    const v = args[i];
    if ((v === undefined || v === null) && !c.optional) {
      throw new InvalidParamsError(`missing value for required argument ${i}`);
    }
    try {
      out.push(c.parse(v));
    } catch (err) {
      if (err instanceof CodecError) throw new InvalidParamsError(`invalid argument ${i}: ${err.message}`);
      throw err;
    }
  }
  return out;
}
