/**
 * The JSON-RPC server's fast path (src/rpc/server/http-fast.ts): a plain request is answered with
 * the bytes node:http would send, anything else is handed to node:http from that request on (in
 * order, on the same connection), and stopping closes the fast path's idle connections.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { test } from 'node:test';
import { parsePlainRequest } from '../../../../src/rpc/server/http-fast.ts';
import { Dispatcher, method } from '../../../../src/rpc/server/dispatcher.ts';
import { JsonRpcHttpServer } from '../../../../src/rpc/server/http.ts';
import { silentLogger } from '../../../../src/util/logger.ts';

const head = (lines: string[], body = '') => Buffer.from(`${lines.join('\r\n')}\r\n\r\n${body}`, 'latin1');
const PLAIN = ['POST / HTTP/1.1', 'Host: x', 'Content-Type: application/json', 'Content-Length: 2'];

test('which requests are plain', () => {
  const start = head(PLAIN).length;
  assert.deepEqual(parsePlainRequest(head(PLAIN, '{}'), 100), {
    bodyStart: start,
    end: start + 2,
    acceptEncoding: undefined,
    authorization: undefined,
    forwardedFor: undefined,
  });
  // a head is enough: the body is in once the buffer reaches `end`
  assert.deepEqual(parsePlainRequest(head(PLAIN, '{'), 100), {
    bodyStart: start,
    end: start + 2,
    acceptEncoding: undefined,
    authorization: undefined,
    forwardedFor: undefined,
  });
  // what admission reads: the JWT and the forwarded client, on the fast path too
  const withFacts = parsePlainRequest(
    head([...PLAIN, 'Authorization: Bearer a.b.c', 'X-Forwarded-For: 198.51.100.1, 10.0.0.1'], '{}'),
    100,
  );
  assert.ok(typeof withFacts === 'object');
  assert.equal(withFacts.authorization, 'Bearer a.b.c');
  assert.equal(withFacts.forwardedFor, '198.51.100.1, 10.0.0.1');
  assert.equal(parsePlainRequest(Buffer.from('POST / HTTP/1.1\r\nHost: x'), 100), 'incomplete');
  assert.equal(parsePlainRequest(head(PLAIN, '{}'), 1), 'delegate', 'body over the limit');
  const variants: [string[], 'delegate' | 'plain'][] = [
    [[...PLAIN, 'connection: Keep-Alive', 'accept-encoding: gzip'], 'plain'],
    [
      ['POST / HTTP/1.1', 'Host: x', 'content-type: Application/JSON; charset=utf-8', 'Content-Length: 2'],
      'plain',
    ],
    [['GET / HTTP/1.1', 'Host: x'], 'delegate'],
    [['POST /?a HTTP/1.1', ...PLAIN.slice(1)], 'delegate'],
    [['POST / HTTP/1.0', ...PLAIN.slice(1)], 'delegate'],
    [PLAIN.filter((l) => !l.startsWith('Host')), 'delegate'],
    [PLAIN.filter((l) => !l.startsWith('Content-Length')), 'delegate'],
    [[...PLAIN, 'Content-Length: 2'], 'delegate'],
    [['POST / HTTP/1.1', 'Host: x', 'Content-Type: text/plain', 'Content-Length: 2'], 'delegate'],
    [[...PLAIN, 'Transfer-Encoding: chunked'], 'delegate'],
    [[...PLAIN, 'Expect: 100-continue'], 'delegate'],
    [[...PLAIN, 'Origin: https://a.example'], 'delegate'],
    [[...PLAIN, 'Connection: close'], 'delegate'],
    [[...PLAIN, 'Upgrade: websocket'], 'delegate'],
    [[...PLAIN, ' folded'], 'delegate'],
    [[...PLAIN, 'Bad : x'], 'delegate'],
    // repeated ones: node:http joins (or refuses) them
    [[...PLAIN, 'X-Forwarded-For: 1.1.1.1', 'X-Forwarded-For: 2.2.2.2'], 'delegate'],
    [[...PLAIN, 'Authorization: Bearer a', 'Authorization: Bearer b'], 'delegate'],
    [[...PLAIN, 'x-long: ' + 'a'.repeat(17_000)], 'delegate'],
  ];
  for (const [lines, want] of variants) {
    const r = parsePlainRequest(head(lines, '{}'), 100);
    assert.equal(typeof r === 'object' ? 'plain' : r, want, lines.join(' | ').slice(0, 120));
  }
});

async function server() {
  const dispatcher = new Dispatcher(
    {
      echo: method([], () => 'x'.repeat(3000)),
      small: method([], () => 'é'),
      fail: method([], () => {
        throw new Error('boom');
      }),
    },
    {
      gate: {
        covers: (name) => name === 'small',
        refusal: () => undefined,
        servedHeaders: { deprecation: 'true', link: '<https://example>; rel="doc"' },
      },
    },
  );
  const s = new JsonRpcHttpServer(dispatcher, {
    host: '127.0.0.1',
    port: 0,
    maxBodyBytes: 4096,
    batchLimit: 10,
    corsOrigins: [],
    logger: silentLogger,
  });
  await s.start();
  return s;
}

/** Sends raw bytes on one connection and collects `answers` responses (framed by content-length). */
async function exchange(socket: Socket, bytes: Buffer, answers: number): Promise<Buffer[]> {
  const out: Buffer[] = [];
  let buf = Buffer.alloc(0);
  return new Promise((resolve, reject) => {
    const onData = (c: Buffer) => {
      buf = Buffer.concat([buf, c]);
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) break;
        const len = Number(/content-length: (\d+)/i.exec(buf.toString('latin1', 0, end))![1]);
        if (buf.length < end + 4 + len) break;
        out.push(buf.subarray(0, end + 4 + len));
        buf = buf.subarray(end + 4 + len);
      }
      if (out.length === answers) {
        socket.off('data', onData);
        resolve(out);
      }
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.write(bytes);
  });
}

const open = (port: number) =>
  new Promise<Socket>((resolve) => {
    const s = connect(port, '127.0.0.1', () => resolve(s));
  });
const call = (m: string) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: m });
/** A POST of `body` with a content-length: the fast path answers it. */
const plain = (body: string, extra: string[] = []) =>
  head(
    [
      'POST / HTTP/1.1',
      'Host: x',
      'Content-Type: application/json',
      `Content-Length: ${Buffer.byteLength(body)}`,
      ...extra,
    ],
    body,
  );
/** The same POST with a chunked body: node:http answers it. */
const chunked = (body: string, extra: string[] = []) =>
  head(
    ['POST / HTTP/1.1', 'Host: x', 'Content-Type: application/json', 'Transfer-Encoding: chunked', ...extra],
    `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`,
  );
const noDate = (b: Buffer) => b.toString('latin1').replace(/\r\nDate: [^\r]*/, '');

test('a plain request gets the bytes node:http sends; pipelined and mixed requests are answered in order', async (t) => {
  const s = await server();
  t.after(() => s.stop());
  const cases: [string, string[]][] = [
    [call('small'), []], // the gate's headers, a multi-byte answer
    [call('echo'), ['Accept-Encoding: gzip, br']], // gzipped
    [call('echo'), []], // large, not gzipped
    [call('fail'), []], // a handler's unexpected failure
    ['{x', []], // a parse error
    ['{"jsonrpc":"2.0","method":"small"}', []], // a notification: no answer
    [`[${call('small')},${call('nope')}]`, []], // a batch
  ];
  for (const [body, extra] of cases) {
    const socket = await open(s.port);
    const [fast] = await exchange(socket, plain(body, extra), 1);
    const [slow] = await exchange(socket, chunked(body, extra), 1);
    socket.destroy();
    assert.equal(noDate(fast), noDate(slow), body);
  }
  // plain, node:http, then plain again, pipelined in one write: all answered, in order
  const socket = await open(s.port);
  t.after(() => socket.destroy());
  const answers = await exchange(
    socket,
    Buffer.concat([plain(call('small')), chunked(call('echo')), plain(call('fail')), plain(call('small'))]),
    4,
  );
  assert.deepEqual(
    answers.map((a) => a.toString('latin1').split('\r\n')[0]),
    Array(4).fill('HTTP/1.1 200 OK'),
  );
  assert.match(answers[1].toString(), /"result":"x{3000}"/);
  assert.match(answers[2].toString(), /"code":-32603/);
});

test('a request arriving in small pieces is answered once, whole', async (t) => {
  const s = await server();
  t.after(() => s.stop());
  const socket = await open(s.port);
  t.after(() => socket.destroy());
  const batch = `[${Array.from({ length: 10 }, () => call('small')).join(',')}]`;
  const bytes = Buffer.concat([plain(batch), plain(call('small'))]);
  const answers = exchange(socket, Buffer.alloc(0), 2);
  for (let at = 0; at < bytes.length; at += 7) {
    socket.write(bytes.subarray(at, at + 7));
    await new Promise((r) => setImmediate(r));
  }
  const [first, second] = await answers;
  assert.equal(JSON.parse(first.toString().split('\r\n\r\n')[1]).length, 10);
  assert.match(second.toString(), /"result":"é"/);
});

test('stop closes idle connections of the fast path and of node:http', async () => {
  const s = await server();
  const [fast, slow] = [await open(s.port), await open(s.port)];
  await exchange(fast, plain(call('small')), 1);
  await exchange(slow, chunked(call('small')), 1);
  const closed = (x: Socket) => new Promise((r) => x.once('close', r));
  const both = Promise.all([closed(fast), closed(slow)]);
  await s.stop();
  await both;
});

test('a pipeline longer than the input bound sent during a slow answer is paused, then answered in full', async (t) => {
  let release: () => void = () => {};
  const gate = new Promise<void>((r) => (release = r));
  const s = new JsonRpcHttpServer(
    new Dispatcher({
      slow: method([], async () => {
        await gate;
        return 'slow';
      }),
      fast: method([], () => 'fast'),
    }),
    { host: '127.0.0.1', port: 0, maxBodyBytes: 1024, batchLimit: 10, corsOrigins: [], logger: silentLogger },
  );
  await s.start();
  t.after(() => s.stop());
  const socket = await open(s.port);
  t.after(() => socket.destroy());
  // far more than the body limit plus two heads (about 33 KB): reading stops while `slow` runs
  const n = 20_000;
  const bytes = Buffer.concat([plain(call('slow')), ...Array.from({ length: n }, () => plain(call('fast')))]);
  const answers = exchange(socket, bytes, n + 1);
  await new Promise((r) => setTimeout(r, 100));
  release();
  const all = await answers;
  assert.match(all[0].toString(), /"result":"slow"/);
  assert.ok(all.slice(1).every((a) => /"result":"fast"/.test(a.toString())));
});
