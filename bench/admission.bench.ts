/**
 * `npm run bench -- admission`: what admission adds to a JSON-RPC request, in µs, for an
 * `eth_blockNumber` from one of 10,000 clients behind a trusted proxy (X-Forwarded-For walked, the
 * shared bucket charged under its lock), and for a JWT check (HS256 verify).
 */
import { Admission } from '../src/rpc/server/admission.ts';
import { TrustedProxies } from '../src/rpc/server/client-address.ts';
import { JwtVerifier, signJwt } from '../src/rpc/server/jwt.ts';
import { QuotaTable, quotaMemory } from '../src/rpc/server/quota.ts';
import { methodCost } from '../src/rpc/evm/method-costs.ts';
import { report } from './report.ts';

const BENCH = 'admission';
const N = 200_000;
const quota = new Admission({
  transport: 'http',
  proxies: new TrustedProxies(['127.0.0.0/8', '::1']),
  quota: { table: new QuotaTable(quotaMemory(), 1e9, 1e9), cost: methodCost, loopback: false },
});
const payload = { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] };
const facts = Array.from({ length: 10_000 }, (_, i) => ({
  peer: '127.0.0.1',
  forwardedFor: `198.51.${i >> 8}.${i & 255}`,
}));
const secret = Buffer.alloc(32, 1);
const jwt = new Admission({
  transport: 'http',
  proxies: new TrustedProxies([]),
  jwt: new JwtVerifier(secret, '[evm] jwt_secret_file'),
});
for (let round = 0; round < 4; round++) {
  let t0 = performance.now();
  for (let i = 0; i < N; i++) {
    const f = facts[i % facts.length];
    if (quota.charge(quota.client(f), payload)) throw new Error('refused');
  }
  const perQuota = ((performance.now() - t0) * 1000) / N;
  const token = {
    peer: '127.0.0.1',
    authorization: `Bearer ${signJwt(secret, Math.floor(Date.now() / 1000))}`,
  };
  t0 = performance.now();
  for (let i = 0; i < N / 10; i++) if (jwt.authorize(token)) throw new Error('refused');
  const perJwt = ((performance.now() - t0) * 1000 * 10) / N;
  if (round === 0) continue; // warm-up
  report(BENCH, 'client + quota charge per request', perQuota, 'us', { clients: facts.length, round });
  report(BENCH, 'JWT check per request', perJwt, 'us', { round });
}
