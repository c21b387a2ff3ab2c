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
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { ChainError } from '../../util/errors.ts';
import type { Logger } from '../../util/logger.ts';
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
  /** A client that lets this many bytes of notifications pile up unread is disconnected. */
  maxBufferedBytes?: number;
  /** Deepest nesting of arrays and objects a message may have (`[evm] max_json_depth`). */
  maxJsonDepth?: number;
}

const DEFAULT_MAX_BUFFERED = 16 * 1024 * 1024;

export class JsonRpcWsServer {
  private readonly dispatcher: Dispatcher;
  private readonly o: WsServerOptions;
  private server: WebSocketServer | undefined;

  constructor(dispatcher: Dispatcher, options: WsServerOptions) {
    this.dispatcher = dispatcher;
    this.o = options;
  }

  get port(): number {
    const a = this.server?.address() as AddressInfo | null | undefined;
    if (!a) throw new Error('JSON-RPC WebSocket server is not listening');
    return a.port;
  }

  get url(): string {
    const host = this.o.host.includes(':') ? `[${this.o.host}]` : this.o.host;
    return `ws://${host}:${this.port}`;
  }

  async start(): Promise<void> {
    const server = new WebSocketServer({
      host: this.o.host,
      port: this.o.port,
      maxPayload: this.o.maxMessageBytes,
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err) =>
        reject(
          new ChainError(
            'RPC_LISTEN_FAILED',
            `the JSON-RPC WebSocket server cannot listen on ${this.o.host}:${this.o.port} ([evm] ws_port): ${err.message}`,
            { cause: err },
          ),
        ),
      );
      server.once('listening', () => {
        server.removeAllListeners('error');
        server.on('error', (err) => this.o.logger.error({ err: err.message }, 'WebSocket server error'));
        resolve();
      });
    });
    server.on('connection', (socket) => this.connection(socket));
    this.server = server;
    this.o.logger.info({ address: this.url }, 'JSON-RPC WebSocket server listening');
  }

  /**
   * Closes every connection (1001 going away; cut after 2 s if the client does not answer the close)
   * and stops listening; resolves when all connections are gone.
   */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    const clients = [...server.clients];
    const gone = clients.map(
      (c) =>
        new Promise<void>((resolve) =>
          c.readyState === WebSocket.CLOSED ? resolve() : c.once('close', () => resolve()),
        ),
    );
    for (const c of clients) c.close(1001, 'server shutting down');
    const timer = setTimeout(() => {
      for (const c of clients) c.terminate();
    }, 2_000);
    await Promise.all([...gone, new Promise<void>((resolve) => server.close(() => resolve()))]);
    clearTimeout(timer);
  }

  private connection(socket: WebSocket): void {
    const maxBuffered = this.o.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED;
    let inFlight = 0;
    const held: string[] = [];
    const write = (text: string) => {
      if (socket.readyState !== WebSocket.OPEN) return;
      if (socket.bufferedAmount > maxBuffered) {
        this.o.logger.warn({ buffered: socket.bufferedAmount }, 'WebSocket client too slow: disconnected');
        socket.terminate();
        return;
      }
      socket.send(text);
    };
    const notify = (subscription: string, result: unknown) => {
      const text = JSON.stringify({
        jsonrpc: '2.0',
        method: 'eth_subscription',
        params: { subscription, result },
      });
      if (inFlight > 0) held.push(text);
      else write(text);
    };
    const bound = this.o.connectionMethods?.(notify);
    const dispatcher = bound ? this.dispatcher.extend(bound.methods) : this.dispatcher;

    // Text and binary frames alike carry JSON (geth answers both).
    socket.on('message', (data) => {
      inFlight++;
      void this.answer(dispatcher, data)
        .then((text) => {
          if (text !== undefined) write(text);
        })
        .catch((err) => {
          this.o.logger.error({ err: (err as Error).message }, 'WebSocket request failed');
        })
        .finally(() => {
          if (--inFlight === 0) for (const t of held.splice(0)) write(t);
        });
    });
    socket.on('close', () => bound?.close());
    socket.on('error', (err) => {
      // Oversized messages land here (ws closes with 1009); nothing to answer.
      this.o.logger.debug({ err: err.message }, 'WebSocket connection error');
    });
  }

  private async answer(dispatcher: Dispatcher, data: WebSocket.RawData): Promise<string | undefined> {
    const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
    const parsed = parseJsonRpcBody(buf, this.o.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH);
    if (parsed.error) return JSON.stringify(parsed.error);
    const answer = await dispatcher.handlePayload(parsed.payload, this.o.batchLimit);
    return answer === undefined ? undefined : JSON.stringify(answer);
  }
}
