/**
 * Whether a JSON-RPC transport lets a request in, before the dispatcher sees it: the JWT of `[evm]
 * jwt_secret_file` (checked once per HTTP request, once per WebSocket upgrade) and the client's
 * quota (`[evm] client_quota`: each payload costs the sum of its methods' weights, charged to the
 * client's token bucket; checked per HTTP request and per WebSocket message).
 *
 * The check sits in the transport, ahead of anything that answers: on the RPC reader threads it runs
 * before a payload is answered locally or forwarded, and the main thread answers a forwarded payload
 * without charging it again. The buckets are shared memory (quota.ts), so the quota holds for the
 * port as a whole however many threads serve it.
 */
import { Counter, type Registry } from 'prom-client';
import { type Address128, formatAddress, isLoopback, type TrustedProxies } from './client-address.ts';
import type { JwtVerifier } from './jwt.ts';
import type { QuotaTable } from './quota.ts';

/** What a request arrives with that admission looks at. */
export interface RequestFacts {
  /** The socket's remote address. */
  peer: string | undefined;
  forwardedFor?: string;
  authorization?: string;
}

/** A request refused: its HTTP status, extra headers, and the JSON-RPC body answered. */
export interface Refusal {
  status: 401 | 429;
  headers: Readonly<Record<string, string>>;
  json: string;
}

export interface ClientQuota {
  table: QuotaTable;
  /** A method's weight (an unknown name: the cheapest). */
  cost: (method: string) => number;
  /** Whether loopback clients are charged too (`[evm] quota_loopback`). */
  loopback: boolean;
}

export interface AdmissionOptions {
  /** `http` or `ws`: a label of the refusal metric. */
  transport: string;
  jwt?: JwtVerifier;
  quota?: ClientQuota;
  proxies: TrustedProxies;
  /** Refusals are counted here (the node's /metrics registry). */
  registry?: Registry;
}

/** The code of a refusal over the quota: geth's "limit exceeded". */
export const LIMIT_EXCEEDED = -32005;
/** The code of a request refused for its JWT (HTTP 401). */
export const UNAUTHORIZED = -32000;

const COUNTER = 'chaind_rpc_admission_refusals_total';

/** The refusal counter of `registry` (one per registry, shared by the transports). */
function refusals(registry: Registry): Counter {
  const existing = registry.getSingleMetric(COUNTER);
  if (existing) return existing as Counter;
  return new Counter({
    name: COUNTER,
    help: 'JSON-RPC requests refused before dispatch, by transport and reason: quota (over [evm] client_quota), jwt_missing, jwt_malformed, jwt_signature, jwt_iat',
    labelNames: ['transport', 'reason'],
    registers: [registry],
  });
}

export class Admission {
  private readonly o: AdmissionOptions;
  private readonly counter: Counter | undefined;

  constructor(o: AdmissionOptions) {
    this.o = o;
    this.counter = o.registry ? refusals(o.registry) : undefined;
  }

  /** Whether requests need a JWT. */
  get authenticates(): boolean {
    return this.o.jwt !== undefined;
  }

  /** A 401 when the JWT is missing or wrong; undefined when it passes (or none is required). */
  authorize(facts: RequestFacts): Refusal | undefined {
    const why = this.o.jwt?.verify(facts.authorization);
    if (!why) return undefined;
    this.counter?.inc({ transport: this.o.transport, reason: why.reason });
    return {
      status: 401,
      headers: { 'www-authenticate': 'Bearer' },
      json: JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: UNAUTHORIZED, message: why.message } }),
    };
  }

  /** The client the quota charges: the peer, or the address a trusted proxy forwarded. */
  client(facts: RequestFacts): Address128 | undefined {
    return this.o.proxies.client(facts.peer, facts.forwardedFor);
  }

  /**
   * Charges `payload` (a parsed request or batch; undefined: a body that did not parse, which costs
   * the least) to `client`'s bucket: a 429 carrying -32005 for each request when the bucket does
   * not hold its cost.
   */
  charge(client: Address128 | undefined, payload: unknown): Refusal | undefined {
    const q = this.o.quota;
    if (!q || !client || (!q.loopback && isLoopback(client))) return undefined;
    const cost = payloadCost(payload, q.cost);
    const charged = q.table.charge(client, cost);
    if (charged.ok) return undefined;
    this.counter?.inc({ transport: this.o.transport, reason: 'quota' });
    const ms = charged.retryAfterMs;
    const error = {
      code: LIMIT_EXCEEDED,
      message:
        `limit exceeded: client ${formatAddress(client)} over [evm] client_quota ` +
        `(${q.table.rate} units/s, burst ${q.table.burst} = [evm] client_quota_burst); ` +
        `this request costs ${cost}; retry after ${ms} ms`,
      data: { retryAfterMs: ms, cost },
    };
    const answer = (id: unknown) => ({ jsonrpc: '2.0', id, error });
    let json: string;
    if (Array.isArray(payload) && payload.length > 0) {
      const ids = payload.map(requestId).filter((id) => id !== undefined);
      json = JSON.stringify(ids.length > 0 ? ids.map(answer) : answer(null));
    } else json = JSON.stringify(answer(requestId(payload) ?? null));
    return { status: 429, headers: { 'retry-after': String(Math.max(1, Math.ceil(ms / 1000))) }, json };
  }
}

/** A payload's cost: the sum of its requests' method weights, at least 1. */
export function payloadCost(payload: unknown, cost: (method: string) => number): number {
  const one = (m: unknown): number => {
    const name = (m as { method?: unknown } | null)?.method;
    return typeof name === 'string' ? cost(name) : 1;
  };
  if (!Array.isArray(payload)) return Math.max(1, one(payload));
  let sum = 0;
  for (const m of payload) sum += one(m);
  return Math.max(1, sum);
}

function requestId(m: unknown): unknown {
  if (m === null || typeof m !== 'object' || Array.isArray(m)) return null;
  if (!('id' in m)) return undefined;
  const id = (m as { id: unknown }).id;
  return id === null || typeof id === 'string' || typeof id === 'number' ? id : null;
}
