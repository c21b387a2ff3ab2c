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
 */
import { Counter, Histogram, type Registry } from 'prom-client';

export type Outcome = 'ok' | 'invalid' | 'error' | 'internal';

/** The JSON-RPC error codes a client caused by what it sent. */
const CLIENT_CODES = new Set([-32700, -32600, -32601, -32602]);

export function outcomeOf(code: number | undefined): Outcome {
  if (code === undefined) return 'ok';
  if (code === -32603) return 'internal';
  return CLIENT_CODES.has(code) ? 'invalid' : 'error';
}

export class RpcMetrics {
  private readonly requests: Counter<'method' | 'outcome'>;
  private readonly duration: Histogram<'method'>;

  constructor(registry: Registry) {
    this.requests = new Counter({
      name: 'chaind_rpc_requests_total',
      help: 'JSON-RPC requests answered, by method and outcome',
      labelNames: ['method', 'outcome'],
      registers: [registry],
    });
    this.duration = new Histogram({
      name: 'chaind_rpc_request_duration_seconds',
      help: 'Time to answer a JSON-RPC request, by method',
      labelNames: ['method'],
      // From a cached read (~50 µs) to a long eth_getLogs or eth_call.
      buckets: [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
      registers: [registry],
    });
  }

  record(method: string, code: number | undefined, seconds: number): void {
    this.requests.inc({ method, outcome: outcomeOf(code) });
    this.duration.observe({ method }, seconds);
  }
}
