/**
 * The WebSocket transport on its own, with a small real method table: a notification sent while its
 * request is in flight arrives after the answer; a connection's methods are released when it closes;
 * a client that stops reading is disconnected once its unread notifications pass the bound; stop
 * closes connections with 1001.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import WebSocket from 'ws';
import { p } from '../../../src/rpc/codecs/params.ts';
import { Dispatcher, method } from '../../../src/rpc/server/dispatcher.ts';
import { JsonRpcWsServer } from '../../../src/rpc/server/ws.ts';
import { silentLogger } from '../../../src/util/logger.ts';
import { until } from '../../helpers/node.ts';

function open(url: string): Promise<WebSocket> {
  const socket = new WebSocket(url);
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
  });
}

test('WebSocket transport: ordering, per-connection cleanup, slow clients, shutdown', async (t) => {
  let opened = 0;
  let closed = 0;
  const server = new JsonRpcWsServer(new Dispatcher({ web3_sha3: method([p.data], (d) => d.length) }), {
    host: '127.0.0.1',
    port: 0,
    maxMessageBytes: 4096,
    batchLimit: 10,
    logger: silentLogger,
    maxBufferedBytes: 1024 * 1024,
    connectionMethods: (notify) => {
      opened++;
      return {
        methods: {
          // notifies before it returns: the notification must still follow the answer
          test_subscribe: method([], () => {
            notify('0x1', 'early');
            return '0x1';
          }),
          // floods the connection with n notifications of 64 KiB each
          test_flood: method([p.index], (n) => {
            setImmediate(() => {
              for (let i = 0; i < n; i++) notify('0x2', 'x'.repeat(65536));
            });
            return true;
          }),
        },
        close: () => void closed++,
      };
    },
  });
  await server.start();
  t.after(() => server.stop());

  await t.test('an answer precedes the notifications its request caused', async () => {
    const ws = await open(server.url);
    const messages: any[] = [];
    ws.on('message', (m) => messages.push(JSON.parse(m.toString())));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'test_subscribe', params: [] }));
    await until(() => messages.length >= 2);
    assert.deepEqual(messages, [
      { jsonrpc: '2.0', id: 1, result: '0x1' },
      { jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: '0x1', result: 'early' } },
    ]);
    ws.close();
    await until(() => closed === 1);
    assert.equal(opened, 1);
  });

  await t.test('a client that stops reading is disconnected', async () => {
    const ws = await open(server.url);
    const gone = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'test_flood', params: ['0x400'] }));
    // stop reading: the kernel buffers fill, then the server's own buffer passes 1 MiB
    (ws as unknown as { _socket: { pause(): void } })._socket.pause();
    await until(() => closed === 2);
    (ws as unknown as { _socket: { resume(): void } })._socket.resume();
    assert.equal(await gone, 1006);
  });

  await t.test('stop closes open connections with 1001', async () => {
    const ws = await open(server.url);
    const code = new Promise<number>((resolve) => ws.once('close', (c) => resolve(c)));
    await server.stop();
    assert.equal(await code, 1001);
    assert.equal(closed, 3);
  });
});
