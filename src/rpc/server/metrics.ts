/**
 * Per-method JSON-RPC metrics, recorded only in the dispatcher (every transport goes through it, so
 * no call is counted twice or missed). Registered on the
 * registry the node serves on /metrics, whose default labels add `chain_id`.
 *
 *   chaind_rpc_requests_total{method,outcome}        outcome: ok | invalid | error | internal
 *   chaind_rpc_request_duration_seconds{method}      histogram of the time to an answer
 *
 * `method` is a served method's name, or `unknown` for names the node does not serve, so a client
 * cannot grow the label set without bound.
 *
 * Recording is on the path of every request, and prom-client's own `inc` and `observe` cost about
 * as much as answering `eth_blockNumber` (a label object hashed and validated per call, a closure per
 * observation). So a request adds to plain per-method counts here, and prom-client sees them only
 * when the registry is read: the counter takes the counts added since the last read in its
 * `collect`, and the histogram is read straight from the counts (prom-client reads a metric
 * through its `get()`, which `MethodHistogram` gives in prom-client's own shape).
 */
import { Counter, type Registry } from 'prom-client';

export type Outcome = 'ok' | 'invalid' | 'error' | 'internal';

/** The JSON-RPC error codes a client caused by what it sent. */
const CLIENT_CODES = new Set([-32700, -32600, -32601, -32602]);

const OUTCOMES: readonly Outcome[] = ['ok', 'invalid', 'error', 'internal'];

/** The outcome's index in OUTCOMES. */
function outcomeIndex(code: number | undefined): number {
  if (code === undefined) return 0;
  if (code === -32603) return 3;
  return CLIENT_CODES.has(code) ? 1 : 2;
}

export function outcomeOf(code: number | undefined): Outcome {
  return OUTCOMES[outcomeIndex(code)];
}

/** From a cached read (~50 µs) to a long eth_getLogs or eth_call. */
export const DURATION_BUCKETS: readonly number[] = [
  0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30,
];

/** One method's counts. */
class MethodCounts {
  /** Answers by outcome (OUTCOMES' order) not yet handed to the counter. */
  readonly unread = new Float64Array(OUTCOMES.length);
  /** Observations per bucket (the last one: above every bound), not cumulative. */
  readonly buckets = new Float64Array(DURATION_BUCKETS.length + 1);
  sum = 0;
  count = 0;
}

/**
 * A histogram labelled by method, read from MethodCounts: the metric object prom-client's registry
 * reads (`get`, `reset`, name, help, type, aggregator), with the values prom-client's Histogram gives.
 */
class MethodHistogram {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly counts: Map<string, MethodCounts>;

  constructor(name: string, help: string, counts: Map<string, MethodCounts>) {
    this.name = name;
    this.help = help;
    this.counts = counts;
  }

  /** The values as prom-client's Histogram gives them for the text format: `method` as a shared label. */
  async getForPromString() {
    type Value = {
      labels: Record<string, string | number>;
      sharedLabels: { method: string };
      value: number;
      metricName: string;
    };
    const values: Value[] = [];
    const bucket = `${this.name}_bucket`;
    for (const [method, c] of this.counts) {
      if (c.count === 0) continue;
      const sharedLabels = { method };
      let cumulative = 0;
      for (let i = 0; i < DURATION_BUCKETS.length; i++) {
        cumulative += c.buckets[i];
        values.push({
          labels: { le: DURATION_BUCKETS[i] },
          sharedLabels,
          value: cumulative,
          metricName: bucket,
        });
      }
      values.push({ labels: { le: '+Inf' }, sharedLabels, value: c.count, metricName: bucket });
      values.push({ labels: {}, sharedLabels, value: c.sum, metricName: `${this.name}_sum` });
      values.push({ labels: {}, sharedLabels, value: c.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** The values as prom-client's Histogram gives them for JSON (and the thread aggregation): labels merged. */
  async get() {
    const metric = await this.getForPromString();
    const values = metric.values.map(({ labels, sharedLabels, value, metricName }) => ({
      labels: { ...labels, ...sharedLabels },
      value,
      metricName,
    }));
    return { ...metric, values };
  }

  /**
   * The registry resets every metric at once: the counts the counter has not read yet go too, or
   * its next read would add answers from before the reset.
   */
  reset(): void {
    for (const c of this.counts.values()) {
      c.unread.fill(0);
      c.buckets.fill(0);
      c.sum = 0;
      c.count = 0;
    }
  }
}

export class RpcMetrics {
  private readonly counts = new Map<string, MethodCounts>();

  constructor(registry: Registry) {
    const counts = this.counts;
    new Counter({
      name: 'chaind_rpc_requests_total',
      help: 'JSON-RPC requests answered, by method and outcome',
      labelNames: ['method', 'outcome'],
      registers: [registry],
      collect() {
        for (const [method, c] of counts) {
          for (let i = 0; i < OUTCOMES.length; i++) {
            if (c.unread[i] === 0) continue;
            this.inc({ method, outcome: OUTCOMES[i] }, c.unread[i]);
            c.unread[i] = 0;
          }
        }
      },
    });
    const duration = new MethodHistogram(
      'chaind_rpc_request_duration_seconds',
      'Time to answer a JSON-RPC request, by method',
      counts,
    );
    // prom-client's registry reads any metric through get(); its types list only its own classes
    registry.registerMetric(duration as unknown as Counter);
  }

  record(method: string, code: number | undefined, seconds: number): void {
    let c = this.counts.get(method);
    if (c === undefined) {
      c = new MethodCounts();
      this.counts.set(method, c);
    }
    c.unread[outcomeIndex(code)]++;
    let bucket = 0;
    while (bucket < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[bucket]) bucket++;
    c.buckets[bucket]++;
    c.sum += seconds;
    c.count++;
  }
}
