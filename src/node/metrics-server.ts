/** The Prometheus scrape endpoint: GET `/metrics` on `[instrumentation] prometheus-listen-addr`. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue, Registry } from 'prom-client';
import { HttpService } from '../rpc/server/http-service.ts';
import { errorMessage } from '../util/errors.ts';
import type { Logger } from '../util/logger.ts';
import { mergeExpositions } from './metrics-merge.ts';

export type ThreadMetrics = MetricObjectWithValues<MetricValue<string>>[];

/**
 * The exposition of `registry` with the families other threads report summed into its own (same
 * name and labels: one series); every other family exactly as the registry has it.
 */
async function withThreads(registry: Registry, threads: ThreadMetrics[]): Promise<string> {
  const shared = new Set(threads.flatMap((t) => t.map((m) => m.name)));
  const mine = (await registry.getMetricsAsJSON()) as ThreadMetrics;
  const merged = AggregatorRegistry.aggregate([mine.filter((m) => shared.has(m.name)), ...threads]);
  const out = new Registry();
  for (const m of mine) {
    if (shared.has(m.name)) out.registerMetric(merged.getSingleMetric(m.name)!);
    else out.registerMetric(Object.assign({ get: () => m }, m) as never);
  }
  // families only the threads have
  for (const name of shared)
    if (!out.getSingleMetric(name)) out.registerMetric(merged.getSingleMetric(name)!);
  return out.metrics();
}

export class MetricsServer extends HttpService {
  private readonly registry: Registry;
  private readonly logger: Logger;
  /** Network mode: CometBFT's exposition and the namespace both use, merged into the answer. */
  private readonly engine: { scrape(): Promise<string>; namespace: string } | undefined;
  /** Series other threads of the node recorded (RPC reader threads): summed into the answer. */
  private readonly threads: (() => ThreadMetrics[]) | undefined;

  /** `maxConnections`: `[instrumentation] max-open-connections`. */
  constructor(
    registry: Registry,
    host: string,
    port: number,
    logger: Logger,
    maxConnections = 3,
    engine?: { scrape(): Promise<string>; namespace: string },
    threads?: () => ThreadMetrics[],
  ) {
    super(host, port, logger, 'metrics server', {
      maxConnections,
      maxConnectionsKey: '[instrumentation] max-open-connections',
    });
    this.registry = registry;
    this.logger = logger;
    this.engine = engine;
    this.threads = threads;
  }

  protected async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== '/metrics')
      return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return void res.writeHead(405, { allow: 'GET, HEAD' }).end();
    try {
      const threads = this.threads?.() ?? [];
      let body =
        threads.length > 0 ? await withThreads(this.registry, threads) : await this.registry.metrics();
      if (this.engine) {
        // CometBFT's own series; if its endpoint cannot answer, chaind's still go out
        const theirs = await this.engine.scrape().catch((err) => {
          this.logger.warn({ err: errorMessage(err) }, 'CometBFT metrics not available');
          return '';
        });
        body = mergeExpositions(body, theirs, this.engine.namespace);
      }
      res.writeHead(200, { 'content-type': this.registry.contentType }).end(body);
    } catch (err) {
      this.logger.error({ err: errorMessage(err) }, 'metrics collection failed');
      res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics collection failed\n');
    }
  }
}
