/**
 * Idle sockets and connection floods. TCP connections to the WebSocket port were never closed, and
 * enough of them took every file descriptor of the process: RPC failed and block production could
 * not write its validator state (EMFILE). Now every listener has a connection cap (more are answered
 * 503 naming the key and closed), the caps are fitted under the descriptor limit with a reserve,
 * a WebSocket connection must complete its upgrade by a deadline, and a WebSocket client that does
 * not answer pings is cut.
 */
import assert from 'node:assert/strict';
import { Agent } from 'node:http';
import { connect, type Socket } from 'node:net';
import { test } from 'node:test';
import WebSocket from 'ws';
import { alive, BlockNumberProbe, post, spawnDev, waitFor } from '../helpers/abuse.ts';

interface Raw {
  socket: Socket;
  received: () => string;
  /** resolves when the connection is closed (by either side) */
  closed: Promise<void>;
  connected: Promise<void>;
}

function raw(port: number, send?: string): Raw {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.on('data', (d) => (received += d.toString('latin1')));
  socket.on('error', () => {});
  const connected = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  if (send !== undefined) socket.once('connect', () => socket.write(send));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { socket, received: () => received, closed, connected };
}

/** A connection the server has surely accepted: a keep-alive request on it was answered. */
async function held(port: number, request: string, answered: RegExp): Promise<Raw> {
  const r = raw(port, request);
  await waitFor(() => answered.test(r.received()), 15_000, `an answer on port ${port}`).catch((err) => {
    throw new Error(`${err.message}; received ${JSON.stringify(r.received().slice(0, 300))}`);
  });
  return r;
}

function openWs(url: string, options: WebSocket.ClientOptions = {}): Promise<WebSocket> {
  const ws = new WebSocket(url, options);
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

const keepAliveGet = (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n`;
const keepAlivePost = (body: string) =>
  `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
const BLOCK_NUMBER = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber' });
/** The HTTP/2 client preface and an empty SETTINGS frame: gRPC answers with its SETTINGS. */
const H2_PREFACE = 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n' + '\x00\x00\x00\x04\x00\x00\x00\x00\x00';

async function height(url: string, agent?: Agent): Promise<number> {
  return Number((await post(url, { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber' }, agent)).result);
}

test('idle and dead connections are cut, and connections over each listener cap get 503 naming the key', async (t) => {
  const node = await spawnDev(t, {
    'evm.ws_max_connections': '6',
    'evm.http_max_connections': '6',
    'evm.read_header_timeout': '1s',
    'evm.ws_ping_interval': '300ms',
    'rpc.max-open-connections': '4',
    'api.max-open-connections': '4',
    'grpc.max-open-connections': '4',
    'instrumentation.max-open-connections': '2',
  });
  const probe = new BlockNumberProbe(t, node.http);
  const opened: { destroy(): void }[] = [];
  t.after(() => opened.forEach((s) => s.destroy()));
  const startHeight = await height(node.http);

  await t.test('TCP connections that never upgrade are closed by the WebSocket port', async () => {
    const idle = Array.from({ length: 6 }, () => raw(node.ports.ws));
    opened.push(...idle.map((r) => r.socket));
    await Promise.all(idle.map((r) => r.connected));
    // the upgrade deadline is read_header_timeout (1 s); without one they stayed open for good
    await waitFor(() => idle.every((r) => r.socket.destroyed), 15_000, 'the idle sockets closed');
  });

  await t.test('WebSocket connections over ws_max_connections are refused at once', async () => {
    const clients = await Promise.all(Array.from({ length: 6 }, () => openWs(node.ws)));
    opened.push(...clients.map((c) => ({ destroy: () => c.terminate() })));
    const extra = raw(node.ports.ws, `GET / HTTP/1.1\r\nHost: x\r\n\r\n`);
    opened.push(extra.socket);
    await extra.closed;
    assert.match(extra.received(), /^HTTP\/1\.1 503 Service Unavailable\r\n/);
    const body = JSON.parse(extra.received().split('\r\n\r\n')[1]);
    assert.deepEqual(body, {
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32005,
        message:
          'too many connections: the JSON-RPC WebSocket server keeps at most 6 open ([evm] ws_max_connections)',
      },
    });
    await assert.rejects(openWs(node.ws), /Unexpected server response: 503/);

    // the upgraded connections outlive the upgrade deadline, answering pings on their own
    await new Promise((r) => setTimeout(r, 1500));
    assert.ok(clients.every((c) => c.readyState === WebSocket.OPEN));

    // a client that stops answering pings is cut, which frees its slot
    clients[0].close();
    await new Promise((r) => clients[0].once('close', r));
    const deaf = await waitFor(
      () => openWs(node.ws, { autoPong: false }).catch(() => undefined),
      10_000,
      'a free slot',
    );
    opened.push({ destroy: () => deaf.terminate() });
    await new Promise((r) => deaf.once('close', r));
    assert.ok(clients.slice(1).every((c) => c.readyState === WebSocket.OPEN));
    for (const c of clients) c.terminate();
  });

  await t.test('each HTTP listener refuses connections over its cap with its own error body', async () => {
    const listeners = [
      // the probe holds one of the JSON-RPC server's 6
      {
        port: node.ports.http,
        fill: 5,
        request: keepAlivePost(BLOCK_NUMBER),
        answered: /"result":"0x/,
        refusal:
          /"code":-32005,"message":"too many connections: the JSON-RPC server keeps at most 6 open \(\[evm\] http_max_connections\)"/,
      },
      {
        port: node.ports.consensus,
        fill: 4,
        request: keepAliveGet('/health'),
        answered: /\r\n\r\n\{/,
        refusal: /\(\[rpc\] max-open-connections\)"/,
      },
      {
        port: node.ports.rest,
        fill: 4,
        request: keepAliveGet('/cosmos/base/tendermint/v1beta1/node_info'),
        answered: /\r\n\r\n\{/,
        refusal:
          /\{"code":8,"message":"too many connections: the REST API keeps at most 4 open \(\[api\] max-open-connections\)"/,
      },
      {
        port: node.ports.metrics,
        fill: 2,
        request: keepAliveGet('/metrics'),
        answered: /HTTP\/1\.1 200 OK/,
        refusal: /keeps at most 2 open \(\[instrumentation\] max-open-connections\)/,
      },
    ];
    for (const l of listeners) {
      const fill = await Promise.all(
        Array.from({ length: l.fill }, () => held(l.port, l.request, l.answered)),
      );
      opened.push(...fill.map((r) => r.socket));
      const extra = raw(l.port, l.request);
      opened.push(extra.socket);
      await extra.closed;
      assert.match(extra.received(), /^HTTP\/1\.1 503 Service Unavailable\r\n/);
      assert.match(extra.received(), l.refusal);
      for (const r of fill) r.socket.destroy();
    }
    // gRPC (HTTP/2): over the cap a connection is closed without an answer
    const grpc = await Promise.all(
      Array.from({ length: 4 }, () => held(node.ports.grpc, H2_PREFACE, /[\s\S]/)),
    );
    opened.push(...grpc.map((r) => r.socket));
    const extra = raw(node.ports.grpc, H2_PREFACE);
    opened.push(extra.socket);
    await extra.closed;
    assert.equal(extra.received(), '');
  });

  // blocks kept coming throughout
  await waitFor(async () => (await height(node.http)) > startHeight, 15_000, 'a new block');
  const report = await probe.stop();
  t.diagnostic(`eth_blockNumber during the test: ${JSON.stringify(report)}`);
  assert.ok(alive(node));
  assert.equal(report.failed, 0, report.errors.join('; '));
  assert.ok(report.answered > 0);
});

test('a flood of connections under a low descriptor limit leaves block production and RPC running', async (t) => {
  const node = await spawnDev(t, {}, { fdLimit: 600 });
  const probe = new BlockNumberProbe(t, node.http);
  const flood: Raw[] = [];
  t.after(() => flood.forEach((r) => r.socket.destroy()));
  // a client whose connection was open before the flood
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  t.after(() => agent.destroy());
  const before = await height(node.http, agent);

  // 1,500 connections, far more than the 600 descriptors the node has
  for (const [port, n] of [
    [node.ports.ws, 700],
    [node.ports.http, 400],
    [node.ports.consensus, 400],
  ] as const) {
    const batch = Array.from({ length: n }, () => raw(port));
    flood.push(...batch);
    await Promise.all(batch.map((r) => Promise.race([r.connected, r.closed])));
  }
  // blocks keep being produced while the flood holds every connection it got
  await waitFor(async () => (await height(node.http, agent)) > before + 3, 20_000, 'three new blocks');
  for (const r of flood) r.socket.destroy();

  // and new clients are served again once the flood is gone
  await waitFor(
    () =>
      post(node.http, { jsonrpc: '2.0', id: 1, method: 'eth_chainId' }).then(
        (r) => typeof r.result === 'string',
        () => false,
      ),
    15_000,
    'a new connection answered',
  );
  const report = await probe.stop();
  t.diagnostic(`eth_blockNumber during the flood: ${JSON.stringify(report)}`);
  const failures = node.proc.lines.filter((l) => /EMFILE|block production failed/.test(l));
  assert.deepEqual(failures.slice(0, 3), []);
  assert.ok(alive(node));
  assert.equal(report.failed, 0, report.errors.join('; '));
  assert.ok(report.answered > 0);
  assert.ok(
    node.proc.lines.some((l) => l.includes('the connection caps exceed the file descriptor limit')),
    'the node said it lowered its connection caps',
  );
});
