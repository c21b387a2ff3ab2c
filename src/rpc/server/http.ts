/**
 * JSON-RPC over HTTP on `node:http` (no framework: one costs 15-20% of throughput for one POST route).
 *   POST /          JSON-RPC (content type application/json), body ≤ maxBodyBytes, gzip if accepted
 *   GET  /          health: 200 while the server runs
 *   OPTIONS         CORS preflight
 * Other paths 404, other methods 405, another content type 415, a larger body 413. JSON-RPC errors,
 * including parse errors, travel in 200 responses, as geth sends them (clients read the error
 * object, not the status).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import {
  createServer as createNetServer,
  type AddressInfo,
  type Server as NetServer,
  type Socket,
} from 'node:net';
import { promisify } from 'node:util';
import { gzip as gzipCb } from 'node:zlib';
import { ChainError } from '../../util/errors.ts';
import type { Logger } from '../../util/logger.ts';
import type { Admission, RequestFacts } from './admission.ts';
import type { CallContext } from './dispatcher.ts';
import { ConnectionGate, jsonRpcRefusal } from './connections.ts';
import { FastConnections, type HttpAnswer } from './http-fast.ts';
import { DEFAULT_MAX_JSON_DEPTH, parseJsonRpcBody } from './json-body.ts';

const gzip = promisify(gzipCb);

/** What answers a parsed body: the Dispatcher, or an RPC reader thread's ReaderPayloads. */
export interface PayloadHandler {
  handlePayloadText(payload: unknown, batchLimit: number, ctx?: CallContext): Promise<string | undefined>;
}

export interface HttpServerOptions {
  host: string;
  /** 0 picks a free port; `port` then tells which. */
  port: number;
  /**
   * Listen with SO_REUSEPORT, so that other threads (RPC reader threads) can listen on the same
   * host and port; the kernel hands each new connection to one of the listeners. `open`: the first
   * listener (it proves the port free first); `join`: one that listens beside it.
   */
  sharePort?: 'open' | 'join';
  maxBodyBytes: number;
  batchLimit: number;
  /** Allowed CORS origins; "*" allows any. Empty: no CORS headers. */
  corsOrigins: readonly string[];
  logger: Logger;
  /** Deepest nesting of arrays and objects a body may have (`[evm] max_json_depth`). */
  maxJsonDepth?: number;
  /**
   * Deadlines of a request, counted from its first byte: its head (`[evm] read_header_timeout`) and
   * its body (`[evm] read_timeout`); then 408 and the connection closes.
   */
  readHeaderTimeoutMs?: number;
  readTimeoutMs?: number;
  /** A keep-alive connection idle this long is closed (`[evm] idle_timeout`). */
  idleTimeoutMs?: number;
  /** Most connections open at once (`[evm] http_max_connections`); more are refused with a 503. */
  maxConnections?: number;
  /**
   * With `sharePort`: an Int32Array[1] over a SharedArrayBuffer in which every thread listening on
   * the port counts its connections, so that `maxConnections` holds for the port as a whole.
   */
  connectionCount?: Int32Array;
  /**
   * Answer bytes a connection may leave unread (`[evm] max_buffered_answer_bytes`); past them its
   * next requests wait until the client reads.
   */
  maxBufferedBytes?: number;
  /**
   * The JWT and per-client quota every request passes before it is answered (or, on an RPC reader
   * thread, forwarded).
   */
  admission?: Admission;
}

export const DEFAULT_MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

export const DEFAULT_HTTP_MAX_CONNECTIONS = 1000;

export const DEFAULT_READ_HEADER_TIMEOUT_MS = 10_000;
export const DEFAULT_READ_TIMEOUT_MS = 30_000;

/** Media types geth accepts for JSON-RPC bodies. */
const JSON_TYPES = new Set(['application/json', 'application/json-rpc', 'application/jsonrequest']);
/** Smaller answers are not worth compressing. */
const GZIP_MIN_BYTES = 1024;
/**
 * A keep-alive client (ethers, viem, the bench) reuses sockets; keep them a little longer than Node's
 * 5 s default so a pause between bursts does not race a server-side close.
 */
export const DEFAULT_IDLE_TIMEOUT_MS = 65_000;
/**
 * How often node:http checks its connections' header and request deadlines (its default, 30 s, would
 * let a deadline of a few seconds run that much longer).
 */
const DEADLINE_CHECK_INTERVAL_MS = 1_000;

export class JsonRpcHttpServer {
  private readonly dispatcher: PayloadHandler;
  private readonly o: HttpServerOptions;
  private readonly log: Logger;
  /** Accepts the connections: plain requests are answered on the fast path (http-fast.ts)... */
  private server: NetServer | undefined;
  /** ...and node:http takes a connection over from its first request that is not plain. */
  private http: Server | undefined;
  private fast: FastConnections | undefined;
  /** Per connection on node:http: the end of its last request's turn. */
  private readonly turns = new WeakMap<Socket, Promise<void>>();

  constructor(dispatcher: PayloadHandler, options: HttpServerOptions) {
    this.dispatcher = dispatcher;
    this.o = options;
    this.log = options.logger;
  }

  /** The bound port (after start). */
  get port(): number {
    const a = this.server?.address() as AddressInfo | null | undefined;
    if (!a) throw new Error('JSON-RPC server is not listening');
    return a.port;
  }

  get url(): string {
    const host = this.o.host.includes(':') ? `[${this.o.host}]` : this.o.host;
    return `http://${host}:${this.port}`;
  }

  async start(): Promise<void> {
    const idleTimeoutMs = this.o.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    const maxBufferedBytes = this.o.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
    const readHeaderTimeoutMs = this.o.readHeaderTimeoutMs ?? DEFAULT_READ_HEADER_TIMEOUT_MS;
    const readTimeoutMs = Math.max(readHeaderTimeoutMs, this.o.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS);
    const http = createServer(
      {
        keepAlive: true,
        headersTimeout: readHeaderTimeoutMs,
        requestTimeout: readTimeoutMs,
        connectionsCheckingInterval: Math.min(DEADLINE_CHECK_INTERVAL_MS, readHeaderTimeoutMs),
      },
      (req, res) => {
        // node:http hands over every request parsed from a read at once (pipelining); they run one
        // after another per connection, as on the fast path, and the next waits while the answers
        // already written are unread past the bound
        const socket = req.socket;
        const turn = (this.turns.get(socket) ?? Promise.resolve())
          .then(() =>
            this.serve(req, res).catch((err) => {
              this.log.error({ err: (err as Error).message }, 'JSON-RPC request failed');
              if (!res.headersSent) send(res, 500, 'text/plain', 'internal error');
              else res.destroy();
            }),
          )
          .then(() => drained(socket, maxBufferedBytes))
          // the next request of this connection waits a turn of the event loop (as on the fast path)
          .then(() => new Promise<void>((resolve) => setImmediate(resolve)));
        this.turns.set(socket, turn);
      },
    );
    http.keepAliveTimeout = idleTimeoutMs;
    const fast = new FastConnections({
      answer: (body, facts) => {
        const refused = this.o.admission?.authorize(facts);
        return refused ? Promise.resolve(refused) : this.answer(body, facts);
      },
      encode: (json, acceptEncoding) => this.encode(json, acceptEncoding),
      fallback: (socket) => http.emit('connection', socket),
      failed: (err) => this.log.error({ err: (err as Error).message }, 'JSON-RPC request failed'),
      maxBodyBytes: this.o.maxBodyBytes,
      keepAliveTimeoutMs: idleTimeoutMs,
      readHeaderTimeoutMs,
      readTimeoutMs,
      maxBufferedBytes,
    });
    const gate = new ConnectionGate(
      { max: this.o.maxConnections ?? DEFAULT_HTTP_MAX_CONNECTIONS, key: '[evm] http_max_connections' },
      'JSON-RPC server',
      this.log,
      jsonRpcRefusal,
      this.o.connectionCount,
    );
    const server = createNetServer((socket) => {
      if (gate.admit(socket)) fast.accept(socket);
    });
    const listen = (target: NetServer, port: number, reusePort: boolean) =>
      new Promise<number>((resolve, reject) => {
        target.once('error', (err) =>
          reject(
            new ChainError(
              'RPC_LISTEN_FAILED',
              `the JSON-RPC server cannot listen on ${this.o.host}:${this.o.port} ([evm] http_port): ${err.message}`,
              { cause: err },
            ),
          ),
        );
        target.listen({ port, host: this.o.host, reusePort }, () => {
          target.removeAllListeners('error');
          resolve((target.address() as AddressInfo).port);
        });
      });
    let port = this.o.port;
    if (this.o.sharePort === 'open') {
      // A reusePort bind succeeds beside another process's reusePort listener (another node of the
      // same user), which would then silently take part of the connections: a plain bind first
      // proves the port free (and picks it when the port is 0). Only a node started in the same
      // instant on the same port could still slip in between.
      const probe = createNetServer();
      port = await listen(probe, port, false);
      await new Promise((resolve) => probe.close(resolve));
    }
    await listen(server, port, this.o.sharePort !== undefined);
    // node:http tracks its connections (for closing them, and its header and request timeouts) from
    // the moment it is listening; it listens through `server` here
    http.emit('listening');
    this.server = server;
    this.http = http;
    this.fast = fast;
    this.log.info({ address: this.url }, 'JSON-RPC server listening');
  }

  /** Stops accepting, lets in-flight requests finish, then closes idle keep-alive sockets. */
  async stop(): Promise<void> {
    const server = this.server;
    const http = this.http!;
    const fast = this.fast!;
    if (!server) return;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    fast.closeIdle();
    // closes node:http's idle connections and stops its timeout checks
    http.close();
    const timer = setTimeout(() => {
      fast.closeAll();
      http.closeAllConnections();
    }, 2_000);
    await closed;
    clearTimeout(timer);
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.cors(req, res);
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/') return send(res, 404, 'text/plain', 'not found');
    if (req.method === 'OPTIONS') return this.preflight(req, res);
    const facts: RequestFacts = {
      peer: req.socket.remoteAddress,
      authorization: req.headers.authorization,
      forwardedFor: header(req.headers['x-forwarded-for']),
    };
    const unauthorized = this.o.admission?.authorize(facts);
    if (unauthorized) {
      for (const [k, v] of Object.entries(unauthorized.headers)) res.setHeader(k, v);
      return send(res, unauthorized.status, 'application/json', unauthorized.json);
    }
    if (req.method === 'GET') {
      if (Number(req.headers['content-length'] ?? 0) > 0)
        return send(res, 400, 'text/plain', 'GET / takes no body');
      return send(res, 200, 'application/json', '{"status":"ok"}');
    }
    if (req.method !== 'POST') {
      res.setHeader('allow', 'GET, POST, OPTIONS');
      return send(res, 405, 'text/plain', 'method not allowed');
    }
    const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (!JSON_TYPES.has(type)) {
      return send(
        res,
        415,
        'text/plain',
        `content type ${type ? JSON.stringify(type) : 'missing'}: want application/json`,
      );
    }
    const body = await this.readBody(req, res);
    if (body === undefined) return;
    const { json, headers, status = 200 } = await this.answer(body, facts);
    if (headers) for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    if (json === undefined) return send(res, status, 'application/json', '');
    const { body: out, gzip } = await this.encode(json, req.headers['accept-encoding']);
    if (gzip) {
      res.setHeader('content-encoding', 'gzip');
      res.setHeader('vary', appendVary(res.getHeader('vary'), 'Accept-Encoding'));
    }
    send(res, status, 'application/json', out);
  }

  /**
   * The JSON answer of a POSTed body (undefined: nothing to answer) and the headers it needs, once
   * its client's quota is charged (a body that does not parse costs the least).
   */
  private async answer(body: Buffer, facts: RequestFacts): Promise<HttpAnswer> {
    const parsed = parseJsonRpcBody(body, this.o.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH);
    const admission = this.o.admission;
    if (admission) {
      const refused = admission.charge(admission.client(facts), parsed.error ? undefined : parsed.payload);
      if (refused) return refused;
    }
    if (parsed.error) return { json: JSON.stringify(parsed.error) };
    const ctx: CallContext = {};
    const json = await this.dispatcher.handlePayloadText(parsed.payload, this.o.batchLimit, ctx);
    return { json, headers: ctx.headers };
  }

  /** `json` as sent: gzipped when it is large enough and the client accepts gzip. */
  private async encode(
    json: string,
    acceptEncoding: string | undefined,
  ): Promise<{ body: string | Buffer; gzip: boolean }> {
    if (json.length >= GZIP_MIN_BYTES && /\bgzip\b/.test(acceptEncoding ?? '')) {
      return { body: await gzip(json), gzip: true };
    }
    return { body: json, gzip: false };
  }

  /** The body, or undefined after answering 413. */
  private readBody(req: IncomingMessage, res: ServerResponse): Promise<Buffer | undefined> {
    const limit = this.o.maxBodyBytes;
    const tooLarge = () => {
      res.setHeader('connection', 'close');
      send(res, 413, 'text/plain', `request body larger than max_request_body_bytes (${limit})`);
      // Stop reading what is left: the connection closes after the answer.
      req.pause();
    };
    if (Number(req.headers['content-length'] ?? 0) > limit) {
      tooLarge();
      return Promise.resolve(undefined);
    }
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let done = false;
      req.on('data', (chunk: Buffer) => {
        if (done) return;
        size += chunk.length;
        if (size > limit) {
          done = true;
          tooLarge();
          resolve(undefined);
          return;
        }
        chunks.push(chunk);
      });
      req.on('end', () => {
        if (!done) resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
        done = true;
      });
      req.on('error', (err) => {
        if (!done) reject(err);
        done = true;
      });
    });
  }

  private originAllowed(origin: string): boolean {
    return this.o.corsOrigins.includes('*') || this.o.corsOrigins.includes(origin);
  }

  private cors(req: IncomingMessage, res: ServerResponse): void {
    const origin = req.headers.origin;
    if (!origin || !this.originAllowed(origin)) return;
    if (this.o.corsOrigins.includes('*')) res.setHeader('access-control-allow-origin', '*');
    else {
      res.setHeader('access-control-allow-origin', origin);
      res.setHeader('vary', 'Origin');
    }
  }

  private preflight(req: IncomingMessage, res: ServerResponse): void {
    const origin = req.headers.origin;
    if (origin && this.originAllowed(origin)) {
      res.setHeader('access-control-allow-methods', 'POST, GET, OPTIONS');
      res.setHeader(
        'access-control-allow-headers',
        req.headers['access-control-request-headers'] ?? 'content-type',
      );
      res.setHeader('access-control-max-age', '600');
    }
    res.setHeader('allow', 'GET, POST, OPTIONS');
    res.writeHead(204).end();
  }
}

/** Resolves once `socket` has at most `max` bytes unsent, or is closed. */
function drained(socket: Socket, max: number): Promise<void> | undefined {
  if (socket.destroyed || socket.writableLength <= max) return undefined;
  return new Promise((resolve) => {
    const done = () => {
      socket.off('drain', done);
      socket.off('close', done);
      resolve();
    };
    socket.on('drain', done);
    socket.on('close', done);
  });
}

/** A header node:http may give as a list (repeated headers it does not join). */
function header(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v.join(', ') : v;
}

function appendVary(current: unknown, value: string): string {
  return current ? `${String(current)}, ${value}` : value;
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** `cors_origins` ("*", or a comma-separated list) as a list. */
export function parseCorsOrigins(setting: string): string[] {
  return setting
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}
