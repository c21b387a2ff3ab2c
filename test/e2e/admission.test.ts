/**
 * Admission on a real `chaind dev`, through HTTP and WebSocket: per-client quotas weighted by method
 * cost (-32005, HTTP 429 with Retry-After, recovery as the bucket refills), X-Forwarded-For honoured
 * only from `[evm] trusted_proxies`, namespaces per transport (`[evm] http_api`, `ws_api`), and the
 * optional HS256 JWT of `[evm] jwt_secret_file`. The quota node serves HTTP from two reader threads
 * beside the main thread, so the quota is seen to hold for the port as a whole.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { test } from 'node:test';
import { WebSocket } from 'ws';
import { spawnDev, type SpawnedNode } from '../helpers/abuse.ts';
import { tempHome } from '../helpers/chaind.ts';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

let nextId = 1;
const req = (method: string, params: readonly unknown[] = []) => ({
  jsonrpc: '2.0',
  id: nextId++,
  method,
  params,
});

/** One POST on a connection of its own (so that with reader threads the kernel picks a thread each time). */
function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const r = request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(text),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode!, headers: res.headers, body: raw ? JSON.parse(raw) : undefined });
        });
        res.on('error', reject);
      },
    );
    r.on('error', reject);
    r.end(text);
  });
}

/**
 * One POST through fetch: a keep-alive connection (the JSON-RPC server's fast path; `post`'s
 * `Connection: close` requests are node:http's).
 */
async function fetchPost(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: Object.fromEntries(res.headers), body: await res.json() };
}

/** A WebSocket connection that answers one request at a time. */
class Ws {
  readonly socket: WebSocket;
  private readonly waiting = new Map<unknown, (m: any) => void>();

  private constructor(socket: WebSocket) {
    this.socket = socket;
    socket.on('message', (data) => {
      const m = JSON.parse(data.toString());
      const id = Array.isArray(m) ? m[0]?.id : m.id;
      this.waiting.get(id)?.(m);
      this.waiting.delete(id);
    });
  }

  static open(
    t: { after(fn: () => unknown): void },
    url: string,
    headers: Record<string, string> = {},
  ): Promise<Ws> {
    const socket = new WebSocket(url, { headers });
    t.after(() => socket.terminate());
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(new Ws(socket)));
      socket.once('unexpected-response', (_req, res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          reject(
            Object.assign(new Error(`upgrade refused: ${res.statusCode}`), {
              status: res.statusCode,
              body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
            }),
          ),
        );
      });
      socket.once('error', reject);
    });
  }

  ask(body: any): Promise<any> {
    const id = Array.isArray(body) ? body[0].id : body.id;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.socket.send(JSON.stringify(body));
    });
  }
}

/** Polls `f` until it gives a value (a condition, not a fixed sleep); fails after `ms`. */
async function until<T>(what: string, f: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Calls of `method` that pass, one after another, before the first is refused (at most `max`). */
async function passesBeforeRefusal(
  call: () => Promise<any>,
  max = 200,
): Promise<{ passed: number; refusal: any }> {
  for (let passed = 0; passed < max; passed++) {
    const r = await call();
    if (r.error) return { passed, refusal: r };
  }
  throw new Error(`no refusal after ${max} calls`);
}

const ETH_CALL = [
  'eth_call',
  [{ to: '0x000000000000000000000000000000000000dEaD', data: '0x' }, 'latest'],
] as const;

// 1 unit a second, 40 at once: 40 eth_chainId, or 2 eth_call, empty a bucket
const QUOTA = { 'evm.client_quota': '1', 'evm.client_quota_burst': '40' };

test('per-client quotas weighted by method cost, behind trusted proxies, over HTTP and WebSocket', async (t) => {
  // loopback is trusted as a proxy here: each X-Forwarded-For address is a client of its own
  const node = await spawnDev(t, {
    ...QUOTA,
    'evm.quota_loopback': 'true',
    'evm.trusted_proxies': '127.0.0.1/32,::1',
    'evm.http_reader_threads': '2',
  });
  const xff = (ip: string) => ({ 'x-forwarded-for': ip });

  await t.test('over the quota: -32005 and 429 with Retry-After; it passes again once refilled', async () => {
    const client = xff('198.51.100.1');
    const { passed, refusal } = await passesBeforeRefusal(async () => {
      const r = await post(node.http, req('eth_chainId'), client);
      if (r.body.error) {
        assert.equal(r.status, 429);
        assert.match(String(r.headers['retry-after']), /^[1-9]\d*$/);
      } else assert.equal(r.status, 200);
      return r.body;
    });
    // 40 of burst, and what refilled while they ran; never three threads' worth
    assert.ok(passed >= 40 && passed < 60, `${passed} passed`);
    assert.equal(refusal.error.code, -32005);
    assert.match(
      refusal.error.message,
      /^limit exceeded: client 198\.51\.100\.1 over \[evm\] client_quota \(1 units\/s, burst 40 = \[evm\] client_quota_burst\); this request costs 1; retry after \d+ ms$/,
    );
    await until('the bucket to refill', async () => {
      const r = await post(node.http, req('eth_chainId'), client);
      return r.status === 200 && r.body.result ? r : undefined;
    });

    // the same over keep-alive connections (the fast path)
    const keepAlive = await passesBeforeRefusal(async () => {
      const r = await fetchPost(node.http, req('eth_chainId'), xff('198.51.100.4'));
      if (r.body.error) {
        assert.equal(r.status, 429);
        assert.match(String(r.headers['retry-after']), /^[1-9]\d*$/);
      }
      return r.body;
    });
    assert.ok(keepAlive.passed >= 40 && keepAlive.passed < 60, `${keepAlive.passed} passed (keep-alive)`);
    assert.match(keepAlive.refusal.error.message, /client 198\.51\.100\.4 over/);

    // a batch costs the sum of its requests
    const batchClient = xff('198.51.100.2');
    const first = await post(
      node.http,
      [req('eth_chainId'), ...Array.from({ length: 29 }, () => req('eth_blockNumber'))],
      batchClient,
    );
    assert.equal(first.status, 200);
    assert.equal(first.body.length, 30);
    const batch = [req('eth_chainId'), req('eth_blockNumber')].concat(
      Array.from({ length: 18 }, () => req('net_version')),
    );
    const over = await post(node.http, batch, batchClient);
    assert.equal(over.status, 429);
    assert.deepEqual(
      over.body.map((a: any) => a.id),
      batch.map((b) => b.id),
    );
    assert.ok(
      over.body.every((a: any) => a.error.code === -32005 && /this request costs 20;/.test(a.error.message)),
    );

    // WebSocket: the message is refused, the connection stays and serves again after the refill
    const ws = await Ws.open(t, node.ws, xff('198.51.100.3'));
    const overWs = await passesBeforeRefusal(() => ws.ask(req('eth_chainId')));
    assert.ok(overWs.passed >= 40 && overWs.passed < 60, `${overWs.passed} passed over WebSocket`);
    assert.equal(overWs.refusal.error.code, -32005);
    assert.match(overWs.refusal.error.message, /client 198\.51\.100\.3 over \[evm\] client_quota/);
    assert.equal(ws.socket.readyState, WebSocket.OPEN);
    await until('the WebSocket bucket to refill', async () => {
      const r = await ws.ask(req('eth_chainId'));
      return r.result ? r : undefined;
    });

    // the refusals are counted
    await until('the refusal metric', async () => {
      const text = await (await fetch(`http://127.0.0.1:${node.ports.metrics}/metrics`)).text();
      const http =
        /chaind_rpc_admission_refusals_total\{[^}]*transport="http"[^}]*reason="quota"[^}]*\} (\d+)/.exec(
          text,
        );
      const wsLine =
        /chaind_rpc_admission_refusals_total\{[^}]*transport="ws"[^}]*reason="quota"[^}]*\} (\d+)/.exec(text);
      // and reader threads answered some of the charged reads themselves
      const local = /chaind_rpc_reader_payloads_total\{[^}]*answered="local"[^}]*\} (\d+)/.exec(text);
      return http && wsLine && local && Number(http[1]) >= 2 && Number(wsLine[1]) >= 1 && Number(local[1]) > 0
        ? true
        : undefined;
    });
  });

  await t.test('a heavy method empties the bucket faster than a cheap one', async () => {
    const heavy = await passesBeforeRefusal(
      async () => (await post(node.http, req(...ETH_CALL), xff('198.51.100.10'))).body,
    );
    const cheap = await passesBeforeRefusal(
      async () => (await post(node.http, req('eth_blockNumber'), xff('198.51.100.11'))).body,
    );
    // eth_call weighs 20: two fit in a bucket of 40 (forwarded by a reader thread, charged once)
    assert.equal(heavy.passed, 2);
    assert.match(heavy.refusal.error.message, /this request costs 20;/);
    assert.ok(cheap.passed >= 40, `${cheap.passed} eth_blockNumber passed`);

    const ws = await Ws.open(t, node.ws, xff('198.51.100.12'));
    const heavyWs = await passesBeforeRefusal(() => ws.ask(req(...ETH_CALL)));
    assert.equal(heavyWs.passed, 2);
    const ws2 = await Ws.open(t, node.ws, xff('198.51.100.13'));
    const cheapWs = await passesBeforeRefusal(() => ws2.ask(req('eth_blockNumber')));
    assert.ok(cheapWs.passed >= 40, `${cheapWs.passed} eth_blockNumber passed over WebSocket`);
  });

  await t.test(
    'X-Forwarded-For from a trusted proxy: each client its own bucket, the right-most untrusted hop counts',
    async () => {
      const a = await passesBeforeRefusal(
        async () => (await post(node.http, req('eth_chainId'), xff('203.0.113.1'))).body,
      );
      assert.ok(a.passed >= 40);
      // another client behind the same proxy is untouched
      assert.equal((await post(node.http, req('eth_chainId'), xff('203.0.113.2'))).status, 200);
      // a spoofed left part does not escape: the proxy appended the real client last
      const spoofed = await post(node.http, req('eth_chainId'), xff('192.0.2.99, 203.0.113.1'));
      assert.equal(spoofed.status, 429);
      assert.match(spoofed.body.error.message, /client 203\.0\.113\.1 over/);
      // the same buckets over WebSocket (the client is read from the upgrade request)
      const wsA = await Ws.open(t, node.ws, xff('203.0.113.1'));
      assert.equal((await wsA.ask(req('eth_chainId'))).error?.code, -32005);
      const wsB = await Ws.open(t, node.ws, xff('203.0.113.3'));
      assert.ok((await wsB.ask(req('eth_chainId'))).result);
    },
  );
});

test('X-Forwarded-For from an untrusted peer is ignored; loopback is exempt unless quota_loopback', async (t) => {
  const node = await spawnDev(t, {
    ...QUOTA,
    'evm.quota_loopback': 'true',
    'evm.trusted_proxies': '10.0.0.0/8',
  });
  const a = await passesBeforeRefusal(
    async () => (await post(node.http, req('eth_chainId'), { 'x-forwarded-for': '203.0.113.1' })).body,
  );
  assert.ok(a.passed >= 40);
  assert.match(a.refusal.error.message, /client 127\.0\.0\.1 over/);
  // another forwarded address changes nothing: the peer (loopback) is the client
  const b = await post(node.http, req('eth_chainId'), { 'x-forwarded-for': '203.0.113.2' });
  assert.equal(b.status, 429);
  const ws = await Ws.open(t, node.ws, { 'x-forwarded-for': '203.0.113.3' });
  assert.match((await ws.ask(req('eth_chainId'))).error?.message ?? '', /client 127\.0\.0\.1 over/);

  // the default: loopback clients are not charged
  const free = await spawnDev(t, { 'evm.client_quota': '1', 'evm.client_quota_burst': '5' });
  for (let i = 0; i < 20; i++) assert.equal((await post(free.http, req('eth_chainId'))).status, 200);
  const wsFree = await Ws.open(t, free.ws);
  for (let i = 0; i < 20; i++) assert.ok((await wsFree.ask(req('eth_chainId'))).result);
});

test('namespaces per transport: http_api and ws_api refuse naming the key, rpc_modules lists what is served', async (t) => {
  // with a reader thread: net_version is one it answers itself
  const node = await spawnDev(t, {
    'evm.http_api': 'eth,web3',
    'evm.ws_api': 'eth,net',
    'evm.disabled_namespaces': 'web3',
    'evm.http_reader_threads': '1',
  });
  const modules = async (ask: (b: any) => Promise<any>) =>
    Object.keys((await ask(req('rpc_modules'))).result).sort();
  const overHttp = async (b: any) => (await post(node.http, b)).body;
  const ws = await Ws.open(t, node.ws);
  const overWs = (b: any) => ws.ask(b);

  const trace = await overHttp(
    req('debug_traceCall', [{ to: '0x000000000000000000000000000000000000dEaD' }, 'latest']),
  );
  assert.deepEqual(trace.error, {
    code: -32601,
    message:
      'the method debug_traceCall is not available: the debug namespace is not served over HTTP on this node ([evm] http_api)',
  });
  // several times, over connections of their own: on the main thread and on the reader thread alike
  for (let i = 0; i < 6; i++) {
    assert.deepEqual((await overHttp(req('net_version'))).error, {
      code: -32601,
      message:
        'the method net_version is not available: the net namespace is not served over HTTP on this node ([evm] http_api)',
    });
  }
  assert.deepEqual(await modules(overHttp), ['eth', 'rpc']);
  assert.match((await overHttp(req('eth_chainId'))).result, /^0x/);

  const traceWs = await overWs(
    req('debug_traceCall', [{ to: '0x000000000000000000000000000000000000dEaD' }, 'latest']),
  );
  assert.deepEqual(traceWs.error, {
    code: -32601,
    message:
      'the method debug_traceCall is not available: the debug namespace is not served over WebSocket on this node ([evm] ws_api)',
  });
  assert.deepEqual(await modules(overWs), ['eth', 'net', 'rpc']);
  assert.ok((await overWs(req('net_version'))).result);
  assert.match((await overWs(req('eth_subscribe', ['newHeads']))).result, /^0x/);

  // disabled_namespaces still refuses, on both transports
  assert.match((await overHttp(req('web3_clientVersion'))).error.message, /\[evm\] disabled_namespaces/);
  assert.match((await overWs(req('web3_clientVersion'))).error.message, /\[evm\] disabled_namespaces/);
});

/** An HS256 JWT, built here independently of the node's code. */
function jwt(secret: Buffer, iat: number): string {
  const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const body = `${enc({ alg: 'HS256', typ: 'JWT' })}.${enc({ iat })}`;
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`;
}

test('jwt_secret_file: HTTP requests and WebSocket upgrades need a fresh HS256 token', async (t) => {
  const dir = tempHome(t, 'chaind-jwt-');
  const secret = Buffer.alloc(32, 0x5a);
  const file = join(dir, 'jwt.hex');
  writeFileSync(file, secret.toString('hex'));
  // with a reader thread: every thread serving the HTTP port checks the token
  const node: SpawnedNode = await spawnDev(t, {
    'evm.jwt_secret_file': file,
    'evm.http_reader_threads': '1',
  });
  const now = () => Math.floor(Date.now() / 1000);
  const cases: [string, Record<string, string>, RegExp | undefined][] = [
    ['missing', {}, /^missing token: no Authorization header; .*\[evm\] jwt_secret_file/],
    [
      'wrong signature',
      { authorization: `Bearer ${jwt(Buffer.alloc(32, 1), now())}` },
      /^invalid token signature/,
    ],
    [
      'stale',
      { authorization: `Bearer ${jwt(secret, now() - 120)}` },
      /^stale token: iat is 1[12]\d s in the past/,
    ],
    ['right', { authorization: `Bearer ${jwt(secret, now())}` }, undefined],
  ];
  for (const [what, headers, refusal] of cases) {
    for (let i = 0; i < 4; i++) {
      const again = await post(node.http, req('eth_chainId'), headers);
      assert.equal(again.status, refusal ? 401 : 200, `${what}, connection ${i}`);
    }
    const kept = await fetchPost(node.http, req('eth_chainId'), headers);
    assert.equal(kept.status, refusal ? 401 : 200, `${what}, keep-alive`);
    if (refusal) assert.match(kept.body.error.message, refusal, `${what}, keep-alive`);
    const r = await post(node.http, req('eth_chainId'), headers);
    if (refusal) {
      assert.equal(r.status, 401, what);
      assert.equal(r.body.error.code, -32000);
      assert.match(r.body.error.message, refusal, what);
      const e = await Ws.open(t, node.ws, headers).then(
        () => assert.fail(`${what}: the upgrade should be refused`),
        (err) => err,
      );
      assert.equal(e.status, 401, what);
      assert.match(e.body.error.message, refusal, what);
    } else {
      assert.equal(r.status, 200, what);
      assert.match(r.body.result, /^0x/);
      const ws = await Ws.open(t, node.ws, headers);
      assert.match((await ws.ask(req('eth_chainId'))).result, /^0x/);
    }
  }
  // the health check is an HTTP request too
  const health = await fetch(node.http);
  assert.equal(health.status, 401);
});
