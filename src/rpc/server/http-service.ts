/**
 * The lifecycle every HTTP server of the node needs: bind (port 0 picks a free port), report the
 * bound address, and stop without waiting for keep-alive connections to time out. A server extends
 * it and implements `handle`.
 *
 * Every such server is bounded like the EVM JSON-RPC: at most `maxConnections` open (more are
 * answered 503 naming the key and closed), a request's head and body must arrive by fixed
 * deadlines from its first byte (408 otherwise), and a connection idle for `idleTimeoutMs` — one
 * that never sends a byte included — is closed.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer } from 'node:net';
import { errorMessage } from '../../util/errors.ts';
import type { Logger } from '../../util/logger.ts';
import { ConnectionGate, httpRefusal } from './connections.ts';

export interface HttpServiceLimits {
  /** Most connections open at once... */
  maxConnections: number;
  /** ...and the key that sets it, e.g. `[rpc] max-open-connections`. */
  maxConnectionsKey: string;
  /** The bytes a refused connection gets (default: a plain-text 503). */
  refusal?: (message: string) => string;
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  idleTimeoutMs?: number;
}

const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
const IDLE_TIMEOUT_MS = 65_000;

export abstract class HttpService {
  readonly server: Server;
  private readonly listener: NetServer;
  private readonly gate: ConnectionGate;
  private readonly host: string;
  private readonly port: number;

  /** `what` names the server in the log line of a request that failed unexpectedly. */
  protected constructor(host: string, port: number, logger: Logger, what: string, limits: HttpServiceLimits) {
    this.host = host;
    this.port = port;
    const headersTimeout = limits.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
    this.server = createServer(
      {
        headersTimeout,
        requestTimeout: Math.max(headersTimeout, limits.requestTimeoutMs ?? REQUEST_TIMEOUT_MS),
        // node:http checks the deadlines this often (its default, 30 s, would stretch them)
        connectionsCheckingInterval: Math.min(1_000, headersTimeout),
      },
      (req, res) => {
        this.handle(req, res).catch((err) => {
          logger.error({ err: errorMessage(err) }, `${what} request failed`);
          if (!res.headersSent) res.writeHead(500);
          res.end();
        });
      },
    );
    // A socket with no traffic for this long is closed, a fresh one that never sends included
    // (node:http's header deadline only starts with a request's first byte).
    this.server.timeout = limits.idleTimeoutMs ?? IDLE_TIMEOUT_MS;
    this.gate = new ConnectionGate(
      { max: limits.maxConnections, key: limits.maxConnectionsKey },
      what,
      logger,
      limits.refusal ?? ((m) => httpRefusal(m)),
    );
    this.listener = createNetServer((socket) => {
      if (this.gate.admit(socket)) this.server.emit('connection', socket);
    });
  }

  protected abstract handle(req: IncomingMessage, res: ServerResponse): Promise<void>;

  /** Binds the listener; port 0 picks a free port (see `address`). */
  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.listener.once('error', reject);
      this.listener.listen(this.port, this.host, () => {
        this.listener.off('error', reject);
        // node:http tracks its connections' deadlines from the moment it is "listening"
        this.server.emit('listening');
        resolve();
      });
    });
  }

  /** The bound address (the configured one before `start`). */
  get address(): { host: string; port: number } {
    const a = this.listener.address() as AddressInfo | null;
    if (!a) return { host: this.host, port: this.port };
    return { host: a.address, port: a.port };
  }

  get url(): string {
    const { host, port } = this.address;
    return `tcp://${host.includes(':') ? `[${host}]` : host}:${port}`;
  }

  /** Connections open now. */
  get connections(): number {
    return this.gate.open;
  }

  async stop(): Promise<void> {
    if (!this.listener.listening) return;
    const closed = new Promise<void>((resolve) => this.listener.close(() => resolve()));
    // stops node:http's deadline checks
    this.server.close();
    // Keep-alive connections would otherwise hold close() open until they time out.
    this.server.closeAllConnections();
    await closed;
  }
}
