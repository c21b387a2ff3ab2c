/**
 * Back-pressure: a client that pipelines requests and never reads the answers once made the node
 * run every request and hold every answer (60 wide eth_getLogs took the RSS to 3.4 GB). Now a
 * connection's requests stop being read while its unread answers exceed `[evm]
 * max_buffered_answer_bytes` (HTTP fast path, node:http, WebSocket), a WebSocket connection runs at
 * most `ws_max_requests_in_flight` at once, and a WebSocket client whose answers stay unread past the
 * bound is disconnected. Each request here answers 128 KiB (an eth_call returning 64 KiB).
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { test } from 'node:test';
import WebSocket from 'ws';
import { alive, BlockNumberProbe, spawnDev, waitFor } from '../helpers/abuse.ts';

const CONTRACT = '0x00000000000000000000000000000000000000aa';
/** PUSH3 0x010000 PUSH1 0 RETURN: returns 64 KiB of zeros */
const BIG_RETURN = '0x620100006000f3';
const call = (id: number) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'eth_call',
    params: [{ to: CONTRACT, data: '0x' }, 'latest', { [CONTRACT]: { code: BIG_RETURN } }],
  });

/** eth_call requests the node has answered so far, from its own metrics. */
async function answeredCalls(metricsPort: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  let n = 0;
  for (const m of text.matchAll(/^chaind_rpc_requests_total\{[^}]*method="eth_call"[^}]*\} (\d+)$/gm))
    n += Number(m[1]);
  return n;
}

/** Polls `read` until it returns the same value five times in a row (200 ms apart). */
async function settled(read: () => Promise<number>): Promise<number> {
  let last = -1;
  let same = 0;
  return waitFor(
    async () => {
      const v = await read();
      same = v === last ? same + 1 : 0;
      last = v;
      await new Promise((r) => setTimeout(r, 200));
      return same >= 4 && v + 1;
    },
    60_000,
    'the count settled',
  ).then((v) => v - 1);
}

/** Pipelines `n` requests on one socket that reads nothing until told; returns the answers then. */
function pipelined(port: number, n: number, extraHeader = '') {
  const socket = connect(port, '127.0.0.1');
  socket.pause();
  let requests = '';
  for (let i = 1; i <= n; i++) {
    const body = call(i);
    requests +=
      `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${extraHeader}` +
      `Content-Length: ${body.length}\r\n\r\n${body}`;
  }
  socket.write(requests);
  return {
    socket,
    /** reads until `n` answers are in; returns their ids in order */
    async readAll(): Promise<number[]> {
      let buf = Buffer.alloc(0);
      const ids: number[] = [];
      await new Promise<void>((resolve, reject) => {
        socket.on('data', (c: Buffer) => {
          buf = Buffer.concat([buf, c]);
          for (;;) {
            const end = buf.indexOf('\r\n\r\n');
            if (end < 0) break;
            const len = Number(/content-length: (\d+)/i.exec(buf.toString('latin1', 0, end))![1]);
            if (buf.length < end + 4 + len) break;
            ids.push(JSON.parse(buf.toString('utf8', end + 4, end + 4 + len)).id);
            buf = buf.subarray(end + 4 + len);
          }
          if (ids.length === n) resolve();
        });
        socket.once('error', reject);
        socket.once('close', () => reject(new Error(`closed after ${ids.length} answers`)));
        socket.resume();
      });
      return ids;
    },
  };
}

test('requests stop being read while a connection leaves its answers unread; a WebSocket hog is cut', async (t) => {
  const node = await spawnDev(t, {
    'evm.max_buffered_answer_bytes': '65536',
    'evm.ws_max_requests_in_flight': '4',
    'evm.ws_ping_interval': '300ms',
  });
  const probe = new BlockNumberProbe(t, node.http);
  const count = () => answeredCalls(node.ports.metrics);
  const N = 300;

  // the fast path (plain POSTs), then node:http (an Origin header hands the requests to it)
  for (const [path, header] of [
    ['fast path', ''],
    ['node:http', 'Origin: https://a.example\r\n'],
  ] as const) {
    const before = await count();
    const client = pipelined(node.ports.http, N, header);
    t.after(() => client.socket.destroy());
    const ran = (await settled(count)) - before;
    t.diagnostic(`${path}: ${ran} of ${N} pipelined eth_calls ran while the client read nothing`);
    assert.ok(ran < N / 2, `${path}: ${ran} of ${N} requests ran for a client that reads nothing`);
    // once the client reads, every answer comes, in order
    const ids = await client.readAll();
    assert.deepEqual(
      ids,
      Array.from({ length: N }, (_, i) => i + 1),
    );
    client.socket.destroy();
  }

  // WebSocket: the client sends N requests and stops reading
  const before = await count();
  const ws = new WebSocket(node.ws);
  t.after(() => ws.terminate());
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  ws.pause();
  for (let i = 1; i <= N; i++) ws.send(call(i));
  const ran = (await settled(count)) - before;
  t.diagnostic(`WebSocket: ${ran} of ${N} eth_calls ran while the client read nothing`);
  assert.ok(ran < N / 2, `WebSocket: ${ran} of ${N} requests ran for a client that reads nothing`);
  await node.proc.waitForLine((l) => l.includes('WebSocket client does not read its answers'), 15_000);
  ws.resume();
  assert.equal(await closed, 1006, 'the connection was cut');

  const report = await probe.stop();
  t.diagnostic(`eth_blockNumber during the test: ${JSON.stringify(report)}`);
  assert.ok(alive(node));
  assert.equal(report.failed, 0, report.errors.join('; '));
  assert.ok(report.answered > 0);
});
