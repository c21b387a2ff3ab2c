/**
 * JSON-RPC over WebSocket (`[evm] ws_port`): the HTTP method table plus what a connection adds
 * (eth_subscribe / eth_unsubscribe, through `connectionMethods`). Each text message is one request
 * or a batch, answered as over HTTP; a message over `maxMessageBytes` closes the connection with 1009
 * (the `ws` library's limit). Notifications use geth's envelope:
 *   {"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"0x…","result":…}}
 *
 * A notification never overtakes the answer that created its subscription: while a connection has
 * requests in flight, its notifications wait and are written after the answers.
 */
import { createServer, STATUS_CODES, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { ChainError } from '../../util/errors.ts';
import type { Logger } from '../../util/logger.ts';
import type { Address128 } from './client-address.ts';
import type { Admission } from './admission.ts';
import { ConnectionGate, jsonRpcRefusal } from './connections.ts';
import type { Dispatcher, MethodTable } from './dispatcher.ts';
import { DEFAULT_MAX_JSON_DEPTH, parseJsonRpcBody } from './json-body.ts';

export interface WsServerOptions {
  host: string;
  /** 0 picks a free port; `port` then tells which. */
  port: number;
  maxMessageBytes: number;
  batchLimit: number;
  logger: Logger;
  /**
   * Methods bound to one connection; `notify` writes an eth_subscription message to it. `close` runs
   * when the connection ends.
   */
  connectionMethods?: (notify: (subscription: string, result: unknown) => void) => {
    methods: MethodTable;
    close(): void;
  };
  /**
   * Bytes of answers and notifications a connection may leave unread (`[evm]
   * max_buffered_answer_bytes`): past them its messages are not read until it reads; a client
   * whose notifications pile up past them, or whose answers stay past them for a ping interval,
   * is disconnected.
   */
  maxBufferedBytes?: number;
  /** Requests of one connection run at once (`[evm] ws_max_requests_in_flight`); more wait unread. */
  maxInFlight?: number;
  /** Deepest nesting of arrays and objects a message may have (`[evm] max_json_depth`). */
  maxJsonDepth?: number;
  /** Most connections open at once (`[evm] ws_max_connections`); more are refused with a 503. */
  maxConnections?: number;
  /** The upgrade request must be in this long after connecting (`[evm] read_header_timeout`). */
  handshakeTimeoutMs?: number;
  /**
   * A ping goes to every connection this often (`[evm] ws_ping_interval`); one that has not
   * answered the previous ping (nor sent anything) by the next is cut.
   */
  pingIntervalMs?: number;
  /**
   * The JWT an upgrade request must carry, and the per-client quota each message is charged (the
   * client is found once, from the upgrade request).
   */
  admission?: Admission;
}

const DEFAULT_MAX_BUFFERED = 16 * 1024 * 1024;
export const DEFAULT_MAX_IN_FLIGHT = 16;

interface ConnectionState {
  /** Reading stopped by back-pressure. */
  paused: boolean;
  /** The ping round since which unread answers are over the bound. */
  overSince: number | undefined;
  maxBuffered: number;
}
export const DEFAULT_WS_MAX_CONNECTIONS = 1000;
const DEFAULT_HANDSHAKE_TIMEOUT_MS = 10_000;
export const DEFAULT_PING_INTERVAL_MS = 30_000;

export class JsonRpcWsServer {
  private readonly dispatcher: Dispatcher;
  private readonly o: WsServerOptions;
  private readonly gate: ConnectionGate;
  /** Accepts connections (counted against the cap)... */
  private listener: NetServer | undefined;
  /** ...which node:http reads until their upgrade request... */
  private http: Server | undefined;
  /** ...and ws serves once upgraded. */
  private server: WebSocketServer | undefined;
  private pinger: NodeJS.Timeout | undefined;
  /** Connections not upgraded yet, with the timer that cuts them if they never are. */
  private readonly handshakes = new Map<Duplex, NodeJS.Timeout>();
  /** Connections that answered (or sent something) since the last ping. */
  private readonly alive = new WeakSet<WebSocket>();
  private readonly states = new Map<WebSocket, ConnectionState>();
  /** Ping rounds so far. */
  private round = 0;

  constructor(dispatcher: Dispatcher, options: WsServerOptions) {
    this.dispatcher = dispatcher;
    this.o = options;
    this.gate = new ConnectionGate(
      { max: options.maxConnections ?? DEFAULT_WS_MAX_CONNECTIONS, key: '[evm] ws_max_connections' },
      'JSON-RPC WebSocket server',
      options.logger,
      jsonRpcRefusal,
    );
  }

  get port(): number {
    const a = this.listener?.address() as AddressInfo | null | undefined;
    if (!a) throw new Error('JSON-RPC WebSocket server is not listening');
    return a.port;
  }

  get url(): string {
    const host = this.o.host.includes(':') ? `[${this.o.host}]` : this.o.host;
    return `ws://${host}:${this.port}`;
  }

  /** Connections open now (upgraded or not). */
  get connections(): number {
    return this.gate.open;
  }

  async start(): Promise<void> {
    const handshakeMs = this.o.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS;
    const server = new WebSocketServer({ noServer: true, maxPayload: this.o.maxMessageBytes });
    // What ws answers a plain HTTP request on its own server.
    const http = createServer(
      { headersTimeout: handshakeMs, requestTimeout: handshakeMs, connectionsCheckingInterval: 1_000 },
      (_req, res) => {
        const body = STATUS_CODES[426]!;
        res.writeHead(426, { 'content-length': body.length, 'content-type': 'text/plain' });
        res.end(body);
      },
    );
    const handshakes = this.handshakes;
    http.on('upgrade', (req, socket, head) => {
      clearTimeout(handshakes.get(socket));
      handshakes.delete(socket);
      const forwarded = req.headers['x-forwarded-for'];
      const facts = {
        peer: req.socket.remoteAddress,
        authorization: req.headers.authorization,
        forwardedFor: Array.isArray(forwarded) ? forwarded.join(', ') : forwarded,
      };
      const refused = this.o.admission?.authorize(facts);
      if (refused) {
        const head =
          `HTTP/1.1 ${refused.status} ${STATUS_CODES[refused.status]}\r\nconnection: close\r\n` +
          Object.entries(refused.headers)
            .map(([k, v]) => `${k}: ${v}\r\n`)
            .join('') +
          `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(refused.json)}\r\n\r\n`;
        socket.end(head + refused.json);
        return;
      }
      const client = this.o.admission?.client(facts);
      server.handleUpgrade(req, socket, head, (ws) => server.emit('connection', ws, client));
    });
    const listener = createNetServer((socket) => {
      if (!this.gate.admit(socket)) return;
      // A socket that never completes its upgrade would otherwise stay open forever: node:http's
      // header deadline starts only with the first byte, and ws sets none.
      handshakes.set(
        socket,
        setTimeout(() => {
          handshakes.delete(socket);
          socket.destroy();
        }, handshakeMs),
      );
      socket.once('close', () => {
        clearTimeout(handshakes.get(socket));
        handshakes.delete(socket);
      });
      http.emit('connection', socket);
    });
    await new Promise<void>((resolve, reject) => {
      listener.once('error', (err) =>
        reject(
          new ChainError(
            'RPC_LISTEN_FAILED',
            `the JSON-RPC WebSocket server cannot listen on ${this.o.host}:${this.o.port} ([evm] ws_port): ${err.message}`,
            { cause: err },
          ),
        ),
      );
      listener.listen(this.o.port, this.o.host, () => {
        listener.removeAllListeners('error');
        listener.on('error', (err) => this.o.logger.error({ err: err.message }, 'WebSocket server error'));
        resolve();
      });
    });
    // node:http tracks its connections' deadlines from the moment it is "listening"
    http.emit('listening');
    server.on('connection', (socket: WebSocket, client: Address128 | undefined) =>
      this.connection(socket, client),
    );
    this.listener = listener;
    this.http = http;
    this.server = server;
    const pingMs = this.o.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS;
    this.pinger = setInterval(() => this.ping(server), pingMs);
    this.pinger.unref();
    this.o.logger.info({ address: this.url }, 'JSON-RPC WebSocket server listening');
  }

  /**
   * Once per ping interval: cuts the connections that did not answer the last ping, and those whose
   * unread answers stayed over the bound since the last round; pings the others. A connection whose
   * reading the server paused (too many requests in flight, or unread answers) cannot have read the
   * pong either, so only its unread answers count against it.
   */
  private ping(server: WebSocketServer): void {
    for (const c of server.clients) {
      if (c.readyState !== WebSocket.OPEN) continue;
      const state = this.states.get(c);
      if (state?.paused) {
        if (state.overSince !== undefined && state.overSince < this.round) {
          this.o.logger.warn(
            { buffered: c.bufferedAmount, max: state.maxBuffered },
            'WebSocket client does not read its answers (over [evm] max_buffered_answer_bytes): disconnected',
          );
          c.terminate();
        }
        continue;
      }
      if (!this.alive.has(c)) {
        this.o.logger.debug('WebSocket client did not answer a ping: disconnected');
        c.terminate();
        continue;
      }
      this.alive.delete(c);
      c.ping();
    }
    this.round++;
  }

  /**
   * Closes every connection (1001 going away; cut after 2 s if the client does not answer the close)
   * and stops listening; resolves when all connections are gone.
   */
  async stop(): Promise<void> {
    const server = this.server;
    const listener = this.listener!;
    const http = this.http!;
    if (!server) return;
    this.server = undefined;
    clearInterval(this.pinger);
    const clients = [...server.clients];
    const gone = clients.map(
      (c) =>
        new Promise<void>((resolve) =>
          c.readyState === WebSocket.CLOSED ? resolve() : c.once('close', () => resolve()),
        ),
    );
    for (const c of clients) c.close(1001, 'server shutting down');
    const closed = new Promise<void>((resolve) => listener.close(() => resolve()));
    // stops node:http's deadline checks
    http.close();
    for (const [socket, timer] of this.handshakes) {
      clearTimeout(timer);
      socket.destroy();
    }
    const timer = setTimeout(() => {
      for (const c of clients) c.terminate();
    }, 2_000);
    await Promise.all([...gone, closed, new Promise<void>((resolve) => server.close(() => resolve()))]);
    clearTimeout(timer);
  }

  private connection(socket: WebSocket, client: Address128 | undefined): void {
    const maxBuffered = this.o.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED;
    const maxInFlight = this.o.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
    const state: ConnectionState = { paused: false, overSince: undefined, maxBuffered };
    this.states.set(socket, state);
    let inFlight = 0;
    const held: string[] = [];
    let heldBytes = 0;
    // Back-pressure: reading stops while the connection has `maxInFlight` requests running or more
    // than `maxBuffered` bytes of answers unread, so a client that sends without reading cannot make
    // the node run (or hold the answers of) an unbounded number of requests. Notifications cannot
    // wait (the chain does not): a client that lets them pile up past the bound is cut.
    // Messages already read when reading stopped (ws parses whole chunks) wait here, in order.
    const waiting: WebSocket.RawData[] = [];
    let scheduled = false;
    const canRun = () =>
      socket.readyState === WebSocket.OPEN && socket.bufferedAmount <= maxBuffered && inFlight < maxInFlight;
    const flow = () => {
      if (socket.readyState !== WebSocket.OPEN) return;
      const over = socket.bufferedAmount > maxBuffered;
      if (over) state.overSince ??= this.round;
      else state.overSince = undefined;
      if (!scheduled && waiting.length > 0 && canRun()) {
        // waiting messages start after a turn of the event loop, so a connection with a queue does
        // not hold it while other connections wait
        scheduled = true;
        setImmediate(() => {
          scheduled = false;
          while (waiting.length > 0 && canRun()) run(waiting.shift()!);
          flow();
        });
      }
      const pause = over || inFlight >= maxInFlight || waiting.length > 0;
      if (pause === state.paused) return;
      state.paused = pause;
      if (pause) socket.pause();
      else {
        socket.resume();
        // a pong that came while reading was stopped has not been read yet
        this.alive.add(socket);
      }
    };
    const send = (text: string) => {
      if (socket.readyState !== WebSocket.OPEN) return;
      socket.send(text, flow);
      flow();
    };
    const tooSlow = () => {
      this.o.logger.warn(
        { buffered: socket.bufferedAmount + heldBytes, max: maxBuffered },
        'WebSocket client too slow for its notifications (over [evm] max_buffered_answer_bytes): disconnected',
      );
      socket.terminate();
    };
    const notify = (subscription: string, result: unknown) => {
      if (socket.readyState !== WebSocket.OPEN) return;
      const text = JSON.stringify({
        jsonrpc: '2.0',
        method: 'eth_subscription',
        params: { subscription, result },
      });
      if (socket.bufferedAmount + heldBytes > maxBuffered) return tooSlow();
      if (inFlight > 0) {
        held.push(text);
        heldBytes += text.length;
      } else send(text);
    };
    this.alive.add(socket);
    socket.on('pong', () => this.alive.add(socket));
    const bound = this.o.connectionMethods?.(notify);
    const dispatcher = bound ? this.dispatcher.extend(bound.methods) : this.dispatcher;

    const run = (data: WebSocket.RawData) => {
      inFlight++;
      void this.answer(dispatcher, data, client)
        .then((text) => {
          if (text !== undefined) send(text);
        })
        .catch((err) => {
          this.o.logger.error({ err: (err as Error).message }, 'WebSocket request failed');
        })
        .finally(() => {
          if (--inFlight === 0) {
            heldBytes = 0;
            for (const t of held.splice(0)) send(t);
          }
          flow();
        });
    };
    // Text and binary frames alike carry JSON (geth answers both).
    socket.on('message', (data) => {
      this.alive.add(socket);
      if (state.paused || inFlight >= maxInFlight || waiting.length > 0) waiting.push(data);
      else run(data);
      flow();
    });
    socket.on('close', () => {
      this.states.delete(socket);
      bound?.close();
    });
    socket.on('error', (err) => {
      // Oversized messages land here (ws closes with 1009); nothing to answer.
      this.o.logger.debug({ err: err.message }, 'WebSocket connection error');
    });
  }

  private async answer(
    dispatcher: Dispatcher,
    data: WebSocket.RawData,
    client: Address128 | undefined,
  ): Promise<string | undefined> {
    const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
    const parsed = parseJsonRpcBody(buf, this.o.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH);
    // over the quota, the message gets its -32005 and the connection stays
    const refused = this.o.admission?.charge(client, parsed.error ? undefined : parsed.payload);
    if (refused) return refused.json;
    if (parsed.error) return JSON.stringify(parsed.error);
    return dispatcher.handlePayloadText(parsed.payload, this.o.batchLimit);
  }
}
