/** The Prometheus scrape endpoint: GET `/metrics` on `[instrumentation] prometheus-listen-addr`. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { errorMessage } from '../util/errors.ts';
import type { Logger } from '../util/logger.ts';

export class MetricsServer {
  private readonly server: Server;
  private readonly host: string;
  private readonly port: number;

  constructor(registry: Registry, host: string, port: number, logger: Logger) {
    this.host = host;
    this.port = port;
    this.server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://localhost').pathname;
      if (path !== '/metrics')
        return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      if (req.method !== 'GET' && req.method !== 'HEAD')
        return void res.writeHead(405, { allow: 'GET, HEAD' }).end();
      registry.metrics().then(
        (body) => res.writeHead(200, { 'content-type': registry.contentType }).end(body),
        (err) => {
          logger.error({ err: errorMessage(err) }, 'metrics collection failed');
          res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics collection failed\n');
        },
      );
    });
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.port, this.host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
  }

  get address(): { host: string; port: number } {
    const a = this.server.address() as AddressInfo | null;
    return a ? { host: a.address, port: a.port } : { host: this.host, port: this.port };
  }

  async stop(): Promise<void> {
    if (!this.server.listening) return;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }
}
