/**
 * The lifecycle every HTTP server of the node needs: bind (port 0 picks a free port), report the
 * bound address, and stop without waiting for keep-alive connections to time out. A server extends
 * it and implements `handle`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorMessage } from '../../util/errors.ts';
import type { Logger } from '../../util/logger.ts';

export abstract class HttpService {
  readonly server: Server;
  private readonly host: string;
  private readonly port: number;

  /** `what` names the server in the log line of a request that failed unexpectedly. */
  protected constructor(host: string, port: number, logger: Logger, what: string) {
    this.host = host;
    this.port = port;
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((err) => {
        logger.error({ err: errorMessage(err) }, `${what} request failed`);
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    });
  }

  protected abstract handle(req: IncomingMessage, res: ServerResponse): Promise<void>;

  /** Binds the listener; port 0 picks a free port (see `address`). */
  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.port, this.host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
  }

  /** The bound address (the configured one before `start`). */
  get address(): { host: string; port: number } {
    const a = this.server.address() as AddressInfo | null;
    if (!a) return { host: this.host, port: this.port };
    return { host: a.address, port: a.port };
  }

  get url(): string {
    const { host, port } = this.address;
    return `tcp://${host.includes(':') ? `[${host}]` : host}:${port}`;
  }

  async stop(): Promise<void> {
    if (!this.server.listening) return;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    // Keep-alive connections would otherwise hold close() open until they time out.
    this.server.closeAllConnections();
    await closed;
  }
}
