/**
 * The consensus RPC HTTP server (CometBFT's `[rpc] laddr`, 26657). Two forms of every route:
 *  - GET `/<route>?name=value…` → `{"jsonrpc":"2.0","id":-1,"result":…}` (id -1 as CometBFT's URI
 *    handler uses); errors with HTTP 404 (unknown route), 400 (bad params), 500 (failed), 417 (lag),
 *    503 (halted);
 *  - POST `/` JSON-RPC 2.0, single or batch → HTTP 200 with `result` or `error` per request, except
 *    a single `/lag_status` that fails (417 over the threshold, 503 halted), which keeps its HTTP
 *    status so health checks see it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { jsonRpcRefusal } from '../server/connections.ts';
import { HttpService } from '../server/http-service.ts';
import { DEFAULT_MAX_JSON_DEPTH, jsonDepthExceeds } from '../server/json-body.ts';
import { errorMessage } from '../../util/errors.ts';
import type { Logger } from '../../util/logger.ts';
import type { Json } from './encoding.ts';
import {
  ConsensusRpcError,
  InvalidRequestError,
  MethodNotFoundError,
  ParseError,
  RequestFailedError,
} from './errors.ts';
import { Params, type ParamSource } from './params.ts';
import type { ConsensusRpcOptions, RouteContext } from './route.ts';
import { ROUTES } from './routes.ts';
import { stateSyncJson } from './routes-info.ts';
import type { ConsensusRpcDeps } from './types.ts';
import { ConsensusWebsocket } from './websocket.ts';

export interface ConsensusRpcServerOptions {
  host: string;
  port: number;
  /** `[rpc] max-body-bytes` */
  maxBodyBytes: number;
  /** `[rpc] cors-allowed-origins`; `*` allows any origin. */
  corsAllowedOrigins: string[];
  lagThreshold: number;
  broadcastTxCommitTimeoutMs?: number;
  /** `[rpc] max-open-connections` */
  maxOpenConnections?: number;
  logger: Logger;
}

/** CometBFT's default `max_open_connections`. */
export const DEFAULT_MAX_OPEN_CONNECTIONS = 900;

/** Requests per JSON-RPC batch, so one body cannot queue unbounded work. */
export const MAX_BATCH = 1000;

type Id = string | number | null;
interface Envelope {
  jsonrpc: '2.0';
  id: Id;
  result?: Json;
  error?: { code: number; message: string; data: string };
}

/** A response and the HTTP status a GET (or a single POST, for the health statuses) answers with. */
interface Outcome {
  env: Envelope;
  status: number;
}

/**
 * Routes this node answers itself in network mode too: CometBFT has no lag status; its abci_query
 * would only come back to this node's application, which answers it the same way; and tx lookups read
 * this node's own tx index, written with the block in one transaction. CometBFT's index is written
 * after the block by a service that never writes a height again once its write failed (a full disk),
 * so a committed tx could be missing there for good.
 */
const LOCAL_ROUTES = new Set(['lag_status', 'abci_query', 'tx', 'tx_search']);

/** The statuses `/lag_status` answers with when unhealthy, which a POST keeps too. */
const HEALTH_STATUSES = new Set([417, 503]);

class BodyTooLargeError extends ConsensusRpcError {
  constructor(limit: number) {
    super('RPC_BODY_TOO_LARGE', -32600, 'Invalid Request', `request body exceeds ${limit} bytes`, 413);
  }
}

export class ConsensusRpcServer extends HttpService {
  private readonly o: ConsensusRpcServerOptions;
  private readonly ctx: RouteContext;
  private readonly websocket: ConsensusWebsocket;

  constructor(deps: ConsensusRpcDeps, options: ConsensusRpcServerOptions) {
    super(options.host, options.port, options.logger, 'consensus RPC', {
      maxConnections: options.maxOpenConnections ?? DEFAULT_MAX_OPEN_CONNECTIONS,
      maxConnectionsKey: '[rpc] max-open-connections',
      refusal: jsonRpcRefusal,
    });
    this.o = options;
    const routeOptions: ConsensusRpcOptions = {
      lagThreshold: options.lagThreshold,
      broadcastTxCommitTimeoutMs: options.broadcastTxCommitTimeoutMs ?? 10_000,
      rpcAddress: () => this.url,
    };
    this.ctx = { deps, options: routeOptions };
    this.websocket = new ConsensusWebsocket({
      deps,
      maxMessageBytes: options.maxBodyBytes,
      call: async (r) => (await this.request(r)).env,
      logger: options.logger,
    });
    this.server.on('upgrade', (req, socket, head) => this.websocket.handleUpgrade(req, socket, head));
  }

  /** Closes the `/websocket` clients too: their sockets would otherwise hold the listener open. */
  override async stop(): Promise<void> {
    this.websocket.close();
    await super.stop();
  }

  protected async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.cors(req, res);
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method === 'OPTIONS') return void res.writeHead(204).end();
    const upstream = this.ctx.deps.upstream;
    if (req.method === 'GET' || req.method === 'HEAD') {
      if (upstream && !LOCAL_ROUTES.has(url.pathname.slice(1))) {
        const a = await this.viaUpstream(() => upstream.get(url.pathname + url.search));
        return this.send(res, a.status, url.pathname === '/status' ? this.overlayStatus(a.body) : a.body);
      }
      if (url.pathname === '/') return this.send(res, 200, this.index(), 'text/plain');
      const { env, status } = await this.call(-1, url.pathname.slice(1), {
        form: 'uri',
        values: new Map(url.searchParams),
      });
      return this.send(res, status, JSON.stringify(env));
    }
    if (req.method !== 'POST')
      return this.send(res, 405, '', 'text/plain', { allow: 'GET, HEAD, POST, OPTIONS' });
    if (url.pathname !== '/') {
      const env = errorEnvelope(null, new MethodNotFoundError(url.pathname));
      return this.send(res, 404, JSON.stringify(env));
    }
    let body: unknown;
    try {
      const raw = await this.readBody(req);
      // as on the EVM JSON-RPC: the route codecs recurse, so a deeper body is refused unparsed
      if (jsonDepthExceeds(raw, DEFAULT_MAX_JSON_DEPTH)) {
        const e = new InvalidRequestError(`JSON nested more than ${DEFAULT_MAX_JSON_DEPTH} levels deep`);
        return this.send(res, 200, JSON.stringify(errorEnvelope(null, e)));
      }
      body = JSON.parse(raw.toString('utf8'));
    } catch (err) {
      const e = err instanceof ConsensusRpcError ? err : new ParseError(errorMessage(err));
      return this.send(res, e.httpStatus === 413 ? 413 : 200, JSON.stringify(errorEnvelope(null, e)));
    }
    if (Array.isArray(body)) {
      const refuse = (reason: string) =>
        this.send(res, 200, JSON.stringify(errorEnvelope(null, new InvalidRequestError(reason))));
      if (body.length === 0) return refuse('empty batch');
      if (body.length > MAX_BATCH)
        return refuse(`batch of ${body.length} requests exceeds the limit of ${MAX_BATCH}`);
      const out = await Promise.all(body.map((r) => this.request(r)));
      return this.send(res, 200, JSON.stringify(out.map((o) => o.env)));
    }
    const { env, status } = await this.request(body);
    return this.send(res, HEALTH_STATUSES.has(status) ? status : 200, JSON.stringify(env));
  }

  private async request(r: unknown): Promise<Outcome> {
    if (typeof r !== 'object' || r === null || Array.isArray(r))
      return failed(null, new InvalidRequestError('a request must be an object'));
    const { jsonrpc, id, method, params } = r as Record<string, unknown>;
    const validId = typeof id === 'string' || typeof id === 'number' || id === null || id === undefined;
    const eid: Id = validId ? ((id as Id | undefined) ?? null) : null;
    if (jsonrpc !== '2.0') return failed(eid, new InvalidRequestError('jsonrpc must be "2.0"'));
    if (!validId) return failed(null, new InvalidRequestError('id must be a string, a number or null'));
    if (typeof method !== 'string') return failed(eid, new InvalidRequestError('method must be a string'));
    const upstream = this.ctx.deps.upstream;
    if (upstream && !LOCAL_ROUTES.has(method)) {
      const a = await this.viaUpstream(() => upstream.post(JSON.stringify(r)));
      const body = method === 'status' ? this.overlayStatus(a.body) : a.body;
      try {
        return { env: JSON.parse(body) as Envelope, status: a.status };
      } catch {
        return failed(
          eid,
          new RequestFailedError(`the consensus engine answered ${a.status}: ${body.slice(0, 200)}`),
        );
      }
    }
    return this.call(eid, method, { form: 'json', values: params });
  }

  private async call(id: Id, method: string, source: ParamSource): Promise<Outcome> {
    const route = ROUTES.get(method);
    try {
      if (!route) throw new MethodNotFoundError(method);
      const result = await route.handle(new Params(source, route.params), this.ctx);
      return { env: { jsonrpc: '2.0', id, result }, status: 200 };
    } catch (err) {
      let e: ConsensusRpcError;
      if (err instanceof ConsensusRpcError) e = err;
      else {
        this.o.logger.error({ method, err: errorMessage(err) }, 'consensus RPC route failed');
        e = new RequestFailedError(errorMessage(err));
      }
      return failed(id, e);
    }
  }

  /** The engine's answer, or a JSON-RPC error when its RPC cannot be reached (it is starting or gone). */
  private async viaUpstream(fn: () => Promise<{ status: number; body: string }>) {
    try {
      return await fn();
    } catch (err) {
      const e = new RequestFailedError(`the consensus engine's RPC is not reachable: ${errorMessage(err)}`);
      return { status: 503, body: JSON.stringify(errorEnvelope(-1, e)) };
    }
  }

  /**
   * CometBFT's /status with this node's health laid over sync_info: catching_up also while the node
   * is halted or behind its peers (CometBFT alone would say false), and why.
   */
  private overlayStatus(body: string): string {
    try {
      const env = JSON.parse(body) as { result?: { sync_info?: Record<string, unknown> } };
      const info = env.result?.sync_info;
      if (!info) return body;
      const sync = this.ctx.deps.sync();
      info.catching_up = Boolean(info.catching_up) || sync.catchingUp || sync.halted;
      info.halted = sync.halted;
      info.halt_reason = sync.reason ?? '';
      if (sync.stateSync) info.state_sync = stateSyncJson(sync.stateSync);
      return JSON.stringify(env);
    } catch {
      return body;
    }
  }

  private readBody(req: IncomingMessage): Promise<Buffer> {
    const limit = this.o.maxBodyBytes;
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (c: Buffer) => {
        size += c.length;
        if (size > limit) {
          req.removeAllListeners('data');
          req.resume();
          reject(new BodyTooLargeError(limit));
        } else chunks.push(c);
      });
      req.on('end', () => resolve(Buffer.concat(chunks)));
      req.on('error', reject);
    });
  }

  private cors(req: IncomingMessage, res: ServerResponse): void {
    const origin = req.headers.origin;
    const allowed = this.o.corsAllowedOrigins;
    if (!origin || !(allowed.includes('*') || allowed.includes(origin))) return;
    res.setHeader('access-control-allow-origin', allowed.includes('*') ? '*' : origin);
    res.setHeader('access-control-allow-methods', 'GET, HEAD, POST, OPTIONS');
    res.setHeader('access-control-allow-headers', 'content-type, accept');
  }

  private index(): string {
    return `Available endpoints:\n${[...ROUTES.entries()]
      .map(([name, r]) => `/${name}${r.params.length ? `?${r.params.map((p) => `${p}=_`).join('&')}` : ''}`)
      .join('\n')}\n`;
  }

  private send(
    res: ServerResponse,
    status: number,
    body: string,
    type = 'application/json',
    headers: Record<string, string> = {},
  ): void {
    res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), ...headers });
    res.end(body);
  }
}

function errorEnvelope(id: Id, e: ConsensusRpcError): Envelope {
  return { jsonrpc: '2.0', id, error: { code: e.rpcCode, message: e.message, data: e.data } };
}

function failed(id: Id, e: ConsensusRpcError): Outcome {
  return { env: errorEnvelope(id, e), status: e.httpStatus };
}
