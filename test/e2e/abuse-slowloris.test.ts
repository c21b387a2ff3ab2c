/**
 * Slowloris against the EVM JSON-RPC: clients that send a request's head or body one byte at a
 * time. The idle timer restarts on every byte, so they once held their connections forever; now a
 * request must be read in full by fixed deadlines from its first byte (`[evm] read_header_timeout`,
 * `read_timeout`), else 408 and the connection closes — on the fast path and on node:http alike.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { test } from 'node:test';
import { alive, BlockNumberProbe, spawnDev } from '../helpers/abuse.ts';

interface Slow {
  socket: Socket;
  /** everything the server sent */
  received: () => string;
  /** resolves when the server closed the connection; with how many bytes the client had sent */
  closed: Promise<{ sentBytes: number }>;
}

/**
 * Connects, sends `head` at once, then `drip` one byte per `everyMs` (repeating it) until the
 * server closes the connection or `giveUpMs` passes.
 */
function slowClient(port: number, head: string, drip: string, everyMs = 100, giveUpMs = 12_000): Slow {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  let sentBytes = 0;
  socket.on('data', (d) => (received += d.toString('latin1')));
  socket.on('error', () => {});
  const closed = new Promise<{ sentBytes: number }>((resolve, reject) => {
    let i = 0;
    let timer: NodeJS.Timeout | undefined;
    const giveUp = setTimeout(() => {
      clearInterval(timer);
      socket.destroy();
      reject(
        new Error(`the server kept a slow connection open for ${giveUpMs} ms (${sentBytes} bytes sent)`),
      );
    }, giveUpMs);
    socket.once('connect', () => {
      socket.write(head);
      sentBytes += head.length;
      timer = setInterval(() => {
        if (socket.destroyed || socket.writableEnded) return;
        socket.write(drip[i++ % drip.length]);
        sentBytes++;
      }, everyMs);
    });
    socket.once('close', () => {
      clearInterval(timer);
      clearTimeout(giveUp);
      resolve({ sentBytes });
    });
  });
  return { socket, received: () => received, closed };
}

test('slow heads and slow bodies get 408 and are closed by their deadlines; the node keeps answering', async (t) => {
  const node = await spawnDev(t, { 'evm.read_header_timeout': '1s', 'evm.read_timeout': '2s' });
  const port = node.ports.http;
  const probe = new BlockNumberProbe(t, node.http);

  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber' }) + ' '.repeat(1000);
  const slow: Slow[] = [];
  for (let i = 0; i < 20; i++) {
    // the head never ends: a header line that keeps growing
    slow.push(slowClient(port, 'POST / HTTP/1.1\r\nHost: x\r\nX-Slow: ', 'abcdefgh'));
    // a plain request (fast path) whose body trickles in
    slow.push(
      slowClient(
        port,
        `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
        body,
      ),
    );
    // a request node:http answers (an Origin header hands it over) whose body trickles in
    slow.push(
      slowClient(
        port,
        `POST / HTTP/1.1\r\nHost: x\r\nOrigin: https://a.example\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
        body,
      ),
    );
  }
  // a second request on a keep-alive connection gets the same deadlines as the first
  const second = slowClient(
    port,
    `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}` +
      `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    body,
  );

  const outcomes = await Promise.all(slow.map((s) => s.closed));
  for (const [i, s] of slow.entries()) {
    assert.match(s.received(), /^HTTP\/1\.1 408 Request Timeout\r\n/, `client ${i}: ${s.received()}`);
    // far less than the whole body: the connection was cut while it still trickled
    assert.ok(outcomes[i].sentBytes < body.length, `client ${i} sent ${outcomes[i].sentBytes} bytes`);
  }
  await second.closed;
  assert.match(second.received(), /^HTTP\/1\.1 200 OK\r\n[\s\S]*HTTP\/1\.1 408 Request Timeout\r\n/);

  // a request whose body arrives in pieces within the deadline is answered as usual
  const timely = slowClient(
    port,
    `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nConnection: keep-alive\r\nContent-Length: ${body.length}\r\n\r\n` +
      body.slice(0, 20),
    '',
    1_000_000,
  );
  await new Promise((r) => setTimeout(r, 300));
  timely.socket.write(body.slice(20));
  const deadline = Date.now() + 10_000;
  while (!/\r\n\r\n\{.*\}/.test(timely.received()) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 20));
  assert.match(timely.received(), /^HTTP\/1\.1 200 OK\r\n[\s\S]*"result":"0x/);
  timely.socket.destroy();
  await timely.closed;

  const report = await probe.stop();
  t.diagnostic(`eth_blockNumber during the test: ${JSON.stringify(report)}`);
  assert.ok(alive(node), 'the node is still running');
  assert.equal(report.failed, 0, report.errors.join('; '));
  assert.ok(report.answered > 0);
});
